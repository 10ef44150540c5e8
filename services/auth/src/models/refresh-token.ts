import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * Refresh tokens, stored only as SHA-256 hashes. A login starts a family; each refresh rotates the
 * token within the family. Presenting a rotated token again revokes the whole family (reuse detection).
 */
export interface RefreshTokenDoc {
  _id: string; // sha256 of the token
  orgId: string;
  userId: string;
  familyId: string;
  status: 'active' | 'rotated' | 'revoked';
  expiresAt: Date;
  createdAt: Date;
}

const schema = new Schema<RefreshTokenDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    userId: { type: String, required: true },
    familyId: { type: String, required: true },
    status: { type: String, required: true },
    expiresAt: { type: Date, required: true },
    createdAt: { type: Date, default: () => new Date() },
  },
  { versionKey: false },
);
// Revoking a family (logout, reuse detection) updates all its tokens.
schema.index({ orgId: 1, familyId: 1 });
// Removing a member revokes all of their tokens.
schema.index({ orgId: 1, userId: 1 });
// The cleanup job deletes expired tokens (no TTL indexes on FerretDB).
schema.index({ expiresAt: 1 });

export function refreshTokenModel(conn: Connection) {
  return modelOn<RefreshTokenDoc>(conn, 'RefreshToken', schema, 'refresh_tokens');
}
