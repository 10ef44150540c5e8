import { randomUUID } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import type { AuthKind, ConnectionStatus } from '@platform/contracts';
import { modelOn } from '@platform/kit';

/**
 * A connection of an organization to an integration. The credentials are one AES-256-GCM sealed JSON
 * document (`v1.<kid>.<iv>.<tag>.<data>`, additional data = the connection id, so a sealed value
 * cannot be moved to another connection); `keyId` repeats the key id so that rotation finds what is
 * not under the primary key. Settings are not secret. A revoked connection has no credentials.
 */
export interface ConnectionDoc {
  _id: string;
  orgId: string;
  integrationId: string;
  name: string;
  authKind: AuthKind;
  settings: Record<string, unknown>;
  credentialsSealed: string | null;
  keyId: string | null;
  status: ConnectionStatus;
  statusReason: string | null;
  lastTestedAt: Date | null;
  lastUsedAt: Date | null;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const newConnectionId = () => `con_${randomUUID().replace(/-/g, '')}`;

const schema = new Schema<ConnectionDoc>(
  {
    _id: { type: String, default: newConnectionId },
    orgId: { type: String, required: true },
    integrationId: { type: String, required: true },
    name: { type: String, required: true },
    authKind: { type: String, required: true },
    settings: { type: Schema.Types.Mixed, default: () => ({}) },
    credentialsSealed: { type: String, default: null },
    keyId: { type: String, default: null },
    status: { type: String, required: true },
    statusReason: { type: String, default: null },
    lastTestedAt: { type: Date, default: null },
    lastUsedAt: { type: Date, default: null },
    createdBy: { type: String, default: null },
    createdAt: { type: Date, default: () => new Date() },
    updatedAt: { type: Date, default: () => new Date() },
  },
  { versionKey: false, minimize: false },
);
// GET /connections (no filter), newest first, and the paginate cursor's tie-breaker.
schema.index({ orgId: 1, createdAt: -1, _id: -1 });
// GET /connections?integrationId=…
schema.index({ orgId: 1, integrationId: 1, createdAt: -1, _id: -1 });
// GET /connections?status=…
schema.index({ orgId: 1, status: 1, createdAt: -1, _id: -1 });
// Names are unique within an organization (409 on a duplicate); also serves lookups by name.
schema.index({ orgId: 1, name: 1 }, { unique: true });
// Key rotation: connections whose credentials are not under the primary key.
schema.index({ keyId: 1 });

export function connectionModel(conn: Connection) {
  return modelOn<ConnectionDoc>(conn, 'Connection', schema, 'connections');
}

/**
 * A unique-index violation: 11000 on MongoDB and on FerretDB inserts; FerretDB 1.24's SQLite backend
 * answers an update that collides with a generic error naming the UNIQUE constraint.
 */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: number; message?: string };
  return e?.code === 11000 || /UNIQUE constraint failed/.test(e?.message ?? '');
}
