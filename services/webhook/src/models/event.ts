import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * A recent event of an organization, kept for WEBHOOK_RETENTION (GET /events). The envelope is stored
 * as JSON text: event data may hold keys FerretDB refuses as field names (with `.` or a leading `$`).
 */
export interface EventDoc {
  _id: string;
  orgId: string;
  type: string;
  createdAt: Date;
  payload: string;
}

const schema = new Schema<EventDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    type: { type: String, required: true },
    createdAt: { type: Date, required: true },
    payload: { type: String, required: true },
  },
  { versionKey: false },
);
// GET /events, newest first.
schema.index({ orgId: 1, createdAt: -1, _id: -1 });
// GET /events?type=…, newest first.
schema.index({ orgId: 1, type: 1, createdAt: -1, _id: -1 });
// The retention cleanup (every organization).
schema.index({ createdAt: 1 });

export function eventModel(conn: Connection) {
  return modelOn<EventDoc>(conn, 'WebhookEvent', schema, 'events');
}
