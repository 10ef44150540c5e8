import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * Claims that make side effects happen once without transactions: inserting `_id` succeeds for one
 * writer only (FerretDB and MongoDB both enforce the unique `_id` atomically). Keys:
 * `<sessionKey>:end` (the one terminal status, with its end time and reason),
 * `<sessionKey>:count-start` and `<sessionKey>:count-end` (the metrics counters were applied).
 */
export interface MarkDoc {
  _id: string;
  orgId: string;
  createdAt: Date;
  data?: Record<string, unknown>;
}

const schema = new Schema<MarkDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    createdAt: { type: Date, required: true },
    data: Schema.Types.Mixed,
  },
  { versionKey: false },
);
// Only `_id` lookups and inserts: no secondary index.

export function markModel(conn: Connection) {
  return modelOn<MarkDoc>(conn, 'SessionMark', schema, 'session_marks');
}

/** Inserts a claim; true when this caller made it, false when it existed already. */
export async function claim(conn: Connection, doc: MarkDoc): Promise<boolean> {
  try {
    await markModel(conn).collection.insertOne(doc as never);
    return true;
  } catch (err) {
    if ((err as { code?: number }).code === 11000) return false;
    throw err;
  }
}
