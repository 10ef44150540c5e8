import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * One system event of a session (connection established, disconnection, error, agent handoff,
 * status change). `_id` is `<orgId>:<sessionId>:e:<key>` where key is the publisher's command id or
 * `status-<Status>` for the transitions the service records, so a redelivery adds nothing.
 */
export interface SystemEventDoc {
  _id: string;
  orgId: string;
  sessionId: string;
  key: string;
  type: string;
  timestamp: Date;
  details: Record<string, unknown>;
}

const schema = new Schema<SystemEventDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    sessionId: { type: String, required: true },
    key: { type: String, required: true },
    type: { type: String, required: true },
    timestamp: { type: Date, required: true },
    details: { type: Schema.Types.Mixed, default: {} },
  },
  { versionKey: false, minimize: false },
);
// A session's events oldest first, paged by (timestamp, _id): GET /sessions/{id}/events and detail.
schema.index({ orgId: 1, sessionId: 1, timestamp: 1, _id: 1 });

export function systemEventModel(conn: Connection) {
  return modelOn<SystemEventDoc>(conn, 'SessionSystemEvent', schema, 'session_events');
}

export function systemEventKey(sessionKey: string, key: string): string {
  return `${sessionKey}:e:${key}`;
}
