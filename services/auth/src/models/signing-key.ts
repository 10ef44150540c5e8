import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * Access-token signing keys (Ed25519). The private key is stored encrypted under KEY_ENCRYPTION_KEYS;
 * the public JWK is served at /.well-known/jwks.json. `status`: active (signs), retired (still
 * verifies until its tokens expire).
 */
export interface SigningKeyDoc {
  _id: string; // kid
  status: 'active' | 'retired';
  publicJwk: Record<string, unknown>;
  privateJwkSealed: string;
  createdAt: Date;
  retiredAt?: Date;
}

const schema = new Schema<SigningKeyDoc>(
  {
    _id: { type: String, required: true },
    status: { type: String, required: true },
    publicJwk: { type: Schema.Types.Mixed, required: true },
    privateJwkSealed: { type: String, required: true },
    createdAt: { type: Date, default: () => new Date() },
    retiredAt: Date,
  },
  { versionKey: false },
);
// JWKS lists keys by status, newest first.
schema.index({ status: 1, createdAt: -1 });

export function signingKeyModel(conn: Connection) {
  return modelOn<SigningKeyDoc>(conn, 'SigningKey', schema, 'signing_keys');
}

/** One document `_id: 'active'` names the signing key; inserting it first decides races between replicas. */
export interface ActiveKeyPointerDoc {
  _id: string;
  kid: string;
  updatedAt: Date;
}
const pointerSchema = new Schema<ActiveKeyPointerDoc>(
  {
    _id: String,
    kid: { type: String, required: true },
    updatedAt: { type: Date, default: () => new Date() },
  },
  { versionKey: false },
);
export function activeKeyPointerModel(conn: Connection) {
  return modelOn<ActiveKeyPointerDoc>(conn, 'ActiveKeyPointer', pointerSchema, 'signing_key_pointer');
}
