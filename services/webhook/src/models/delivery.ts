import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

export interface AttemptDoc {
  attempt: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
}

/**
 * One event for one endpoint. The body is stored as sent, so every attempt and replay signs the same
 * bytes. `nextAttempt` is the number of the attempt to run next (attempt numbers never repeat, so a
 * work message `deliveryId:attempt` is unique); `roundStart` is where the current retry schedule began
 * (a replay starts a new round). While an attempt is pending, only the holder of its work message
 * writes the delivery (see retry.ts for why).
 */
export interface DeliveryDoc {
  _id: string;
  orgId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: AttemptDoc[];
  nextAttempt: number;
  roundStart: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const attemptSchema = new Schema<AttemptDoc>(
  {
    attempt: Number,
    at: Date,
    statusCode: { type: Number, default: null },
    durationMs: Number,
    error: { type: String, default: null },
    responseBody: { type: String, default: null },
  },
  { _id: false },
);

const schema = new Schema<DeliveryDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    endpointId: { type: String, required: true },
    eventId: { type: String, required: true },
    eventType: { type: String, required: true },
    payload: { type: String, required: true },
    status: { type: String, required: true },
    attempts: { type: [attemptSchema], default: [] },
    nextAttempt: { type: Number, required: true },
    roundStart: { type: Number, required: true },
    nextAttemptAt: { type: Date, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// GET /webhooks/{id}/deliveries, newest first; also the delete of an endpoint's deliveries.
schema.index({ orgId: 1, endpointId: 1, createdAt: -1, _id: -1 });
// The same list filtered by status.
schema.index({ orgId: 1, endpointId: 1, status: 1, createdAt: -1, _id: -1 });
// The retention cleanup of finished deliveries.
schema.index({ updatedAt: 1 });

export function deliveryModel(conn: Connection) {
  return modelOn<DeliveryDoc>(conn, 'WebhookDelivery', schema, 'deliveries');
}
