import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';
import { randomUUID } from 'node:crypto';

/** A user belongs to one organization (its membership holds the role). */
export interface UserDoc {
  _id: string;
  orgId: string;
  email: string;
  passwordHash: string;
  role: 'owner' | 'admin' | 'developer' | 'viewer';
  createdAt: Date;
}

const schema = new Schema<UserDoc>(
  {
    _id: { type: String, default: () => `usr_${randomUUID().replace(/-/g, '')}` },
    orgId: { type: String, required: true },
    email: { type: String, required: true },
    passwordHash: { type: String, required: true },
    role: { type: String, required: true },
    createdAt: { type: Date, default: () => new Date() },
  },
  { versionKey: false },
);
// Login looks a user up by email; an email is one account across the platform.
schema.index({ email: 1 }, { unique: true });
// Member lists of an organization.
schema.index({ orgId: 1, createdAt: 1 });

export function userModel(conn: Connection) {
  return modelOn<UserDoc>(conn, 'User', schema, 'users');
}
