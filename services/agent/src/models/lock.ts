import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * A lock on one thing (a session, an agent), held by the one writer of its documents. Taking it is an
 * insert of `_id`, which succeeds for one caller only: FerretDB 1.24 does not apply two conditional
 * updates of one document atomically (both can "win", and one's changes are lost), but it does refuse
 * a second insert of the same `_id`. A holder that died leaves its lock until `expiresAt`; then the
 * next caller removes it and takes its own.
 */
export interface LockDoc {
  _id: string;
  owner: string;
  expiresAt: Date;
  createdAt: Date;
}

const schema = new Schema<LockDoc>(
  {
    _id: { type: String, required: true },
    owner: { type: String, required: true },
    expiresAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// The cleanup deletes locks left behind by processes that died long ago.
schema.index({ expiresAt: 1 });

export function lockModel(conn: Connection) {
  return modelOn<LockDoc>(conn, 'Lock', schema, 'locks');
}
