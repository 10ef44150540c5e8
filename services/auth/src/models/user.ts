import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';
import { randomUUID } from 'node:crypto';

/**
 * A user belongs to one organization; the user document is the membership and holds the role. An
 * invited member has no password yet (`status: invited`) and a hashed one-time invitation token.
 */
export interface UserDoc {
  _id: string;
  orgId: string;
  email: string;
  passwordHash: string;
  role: 'owner' | 'admin' | 'developer' | 'viewer';
  status: 'active' | 'invited';
  inviteTokenHash?: string | null;
  inviteExpiresAt?: Date | null;
  createdAt: Date;
}

const schema = new Schema<UserDoc>(
  {
    _id: { type: String, default: () => `usr_${randomUUID().replace(/-/g, '')}` },
    orgId: { type: String, required: true },
    email: { type: String, required: true },
    passwordHash: { type: String, default: '' },
    role: { type: String, required: true },
    status: { type: String, default: 'active' },
    inviteTokenHash: { type: String, default: null },
    inviteExpiresAt: { type: Date, default: null },
    createdAt: { type: Date, default: () => new Date() },
  },
  { versionKey: false },
);
// Login looks a user up by email; an email is one account across the platform.
schema.index({ email: 1 }, { unique: true });
// Member lists of an organization, newest first (paginate sorts createdAt, _id descending).
schema.index({ orgId: 1, createdAt: -1, _id: -1 });
// Accepting an invitation finds the member by the hash of the token.
schema.index({ inviteTokenHash: 1 });

export function userModel(conn: Connection) {
  return modelOn<UserDoc>(conn, 'User', schema, 'users');
}
