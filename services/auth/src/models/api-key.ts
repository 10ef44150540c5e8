import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';
import { randomUUID } from 'node:crypto';

/**
 * An API key's description. Its secrets (the current one, and the previous one during a rotation
 * grace period) are in `api_key_secrets`, stored only as SHA-256 hashes.
 */
export interface ApiKeyDoc {
  _id: string;
  orgId: string;
  name: string;
  role: 'owner' | 'admin' | 'developer' | 'viewer';
  prefix: string;
  lastFour: string;
  createdBy: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  previousSecretExpiresAt: Date | null;
}

const schema = new Schema<ApiKeyDoc>(
  {
    _id: { type: String, default: () => `key_${randomUUID().replace(/-/g, '')}` },
    orgId: { type: String, required: true },
    name: { type: String, required: true },
    role: { type: String, required: true },
    prefix: { type: String, required: true },
    lastFour: { type: String, required: true },
    createdBy: { type: String, required: true },
    createdAt: { type: Date, default: () => new Date() },
    lastUsedAt: { type: Date, default: null },
    expiresAt: { type: Date, default: null },
    previousSecretExpiresAt: { type: Date, default: null },
  },
  { versionKey: false },
);
// Key lists of an organization, newest first (paginate sorts createdAt, _id descending).
schema.index({ orgId: 1, createdAt: -1, _id: -1 });

export function apiKeyModel(conn: Connection) {
  return modelOn<ApiKeyDoc>(conn, 'ApiKey', schema, 'api_keys');
}

/** One secret of a key: `_id` is the SHA-256 (hex) of the secret, the gateway's lookup. */
export interface ApiKeySecretDoc {
  _id: string;
  keyId: string;
  orgId: string;
  /** Null while it is the key's current secret; the end of the grace period once rotated. */
  validUntil: Date | null;
  createdAt: Date;
}

const secretSchema = new Schema<ApiKeySecretDoc>(
  {
    _id: { type: String, required: true },
    keyId: { type: String, required: true },
    orgId: { type: String, required: true },
    validUntil: { type: Date, default: null },
    createdAt: { type: Date, default: () => new Date() },
  },
  { versionKey: false },
);
// Rotation and deletion find the secrets of a key.
secretSchema.index({ orgId: 1, keyId: 1 });
// The cleanup job removes secrets whose grace period ended.
secretSchema.index({ validUntil: 1 });

export function apiKeySecretModel(conn: Connection) {
  return modelOn<ApiKeySecretDoc>(conn, 'ApiKeySecret', secretSchema, 'api_key_secrets');
}
