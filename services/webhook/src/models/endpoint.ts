import { randomUUID } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/** A signing secret, encrypted (AAD: the endpoint id); `expiresAt` is set on the previous one at rotation. */
export interface SealedSecret {
  sealed: string;
  createdAt: Date;
  expiresAt: Date | null;
}

export interface EndpointDoc {
  _id: string;
  orgId: string;
  url: string;
  /** Event types, or `*`. */
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: 'manual' | 'gone' | 'failing' | null;
  /** First failed attempt since the last success; cleared by a success. */
  failingSince: Date | null;
  /** Newest first; every one not expired signs. */
  secrets: SealedSecret[];
  secretRotatedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const secretSchema = new Schema<SealedSecret>(
  { sealed: { type: String, required: true }, createdAt: Date, expiresAt: { type: Date, default: null } },
  { _id: false },
);

const schema = new Schema<EndpointDoc>(
  {
    _id: { type: String, default: () => `wh_${randomUUID().replace(/-/g, '')}` },
    orgId: { type: String, required: true },
    url: { type: String, required: true },
    events: { type: [String], required: true },
    description: { type: String, default: null },
    enabled: { type: Boolean, required: true },
    disabledReason: { type: String, default: null },
    failingSince: { type: Date, default: null },
    secrets: { type: [secretSchema], required: true },
    secretRotatedAt: { type: Date, default: null },
    createdAt: { type: Date, default: () => new Date() },
    updatedAt: { type: Date, default: () => new Date() },
  },
  { versionKey: false },
);
// GET /webhooks: an organization's endpoints, newest first (also the per-organization count).
schema.index({ orgId: 1, createdAt: -1, _id: -1 });
// Fan-out: the enabled endpoints of an organization subscribed to a type.
schema.index({ orgId: 1, enabled: 1, events: 1 });

export function endpointModel(conn: Connection) {
  return modelOn<EndpointDoc>(conn, 'WebhookEndpoint', schema, 'endpoints');
}
