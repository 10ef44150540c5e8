import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * One message of a transcript. `_id` is `<orgId>:<sessionId>:m:<position, 10 digits>`: inserting a
 * redelivered message fails on the key (nothing is added twice), and a page of a transcript is one
 * range of the `_id` index in position order. Messages are only ever inserted.
 */
export interface MessageDoc {
  _id: string;
  orgId: string;
  sessionId: string;
  position: number;
  sender: 'user' | 'agent';
  content: string;
  timestamp: Date;
}

const schema = new Schema<MessageDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    sessionId: { type: String, required: true },
    position: { type: Number, required: true },
    sender: { type: String, required: true },
    content: { type: String, default: '' },
    timestamp: { type: Date, required: true },
  },
  { versionKey: false },
);
// No secondary index: the `_id` index serves transcript pages (range on the session's prefix) and
// de-duplication (unique key = organization, session, position).

export function messageModel(conn: Connection) {
  return modelOn<MessageDoc>(conn, 'SessionMessage', schema, 'session_messages');
}

export const positionWidth = 10;

export function messageKey(sessionKey: string, position: number): string {
  return `${sessionKey}:m:${String(position).padStart(positionWidth, '0')}`;
}
