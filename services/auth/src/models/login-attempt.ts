import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * Failed logins counted per email (hashed) and per client address, in fixed windows, shared by
 * every auth replica. `_id`: `email:<sha256>` or `ip:<address>`.
 */
export interface LoginAttemptDoc {
  _id: string;
  failures: number;
  windowEndsAt: Date;
}

const schema = new Schema<LoginAttemptDoc>(
  {
    _id: { type: String, required: true },
    failures: { type: Number, required: true },
    windowEndsAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// The cleanup job deletes counters whose window ended.
schema.index({ windowEndsAt: 1 });

export function loginAttemptModel(conn: Connection) {
  return modelOn<LoginAttemptDoc>(conn, 'LoginAttempt', schema, 'login_attempts');
}
