import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * A request to cancel an execution. Kept apart from the execution document so that the replica
 * running the execution stays its only writer. Every replica also sees the request through the
 * `exec_cancels` KV bucket (engine/cancel-signals.ts); this record is read when the bucket's entry
 * may have expired (executions older than its trust window).
 */
export interface CancelRequestDoc {
  _id: string; // execution id
  orgId: string;
  requestedAt: Date;
}

const schema = new Schema<CancelRequestDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    requestedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// Housekeeping deletes requests of executions long finished.
schema.index({ requestedAt: 1 });

export function cancelRequestModel(conn: Connection) {
  return modelOn<CancelRequestDoc>(conn, 'CancelRequest', schema, 'cancel_requests');
}
