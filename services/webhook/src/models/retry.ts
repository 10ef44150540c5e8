import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * An attempt waiting for its time (a retry) or for its work message to be published (NATS was away).
 * One document per attempt (`deliveryId:attempt`), written once and deleted once its work message is
 * published: a small collection the scheduler scans cheaply, and no document ever has two writers
 * (FerretDB 1.x applies concurrent updates of one document as read-modify-write and can lose one).
 */
export interface RetryDoc {
  _id: string;
  deliveryId: string;
  orgId: string;
  endpointId: string;
  attempt: number;
  dueAt: Date;
}

const schema = new Schema<RetryDoc>(
  {
    _id: { type: String, required: true },
    deliveryId: { type: String, required: true },
    orgId: { type: String, required: true },
    endpointId: { type: String, required: true },
    attempt: { type: Number, required: true },
    dueAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// The scheduler (every organization): attempts whose time has come, oldest first.
schema.index({ dueAt: 1 });

export function retryModel(conn: Connection) {
  return modelOn<RetryDoc>(conn, 'WebhookRetry', schema, 'retries');
}
