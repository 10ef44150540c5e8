import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';
import type { SessionChannel, SessionStatus, SessionType } from '@platform/contracts';

/**
 * One conversation. `_id` is `<orgId>:<sessionId>`: the tenant is part of the key, so a lookup by
 * `_id` alone is scoped to the organization and is the one filter FerretDB pushes down to SQLite
 * (see docs/sessions.md). Messages and system events live in their own collections so that list
 * scans stay small. `searchTerms` holds lowercase prefixes-to-be (id, agent name and its words,
 * metadata values and their words) for the `search` filter.
 */
export interface SessionDoc {
  _id: string;
  orgId: string;
  sessionId: string;
  agentId: string;
  agentName: string;
  agentVersion: string;
  channel: SessionChannel;
  sessionType: SessionType;
  status: SessionStatus;
  startTime: Date;
  endTime?: Date;
  durationMs?: number;
  endReason?: string;
  metadata: Record<string, unknown>;
  searchTerms: string[];
  /** Highest message position stored: positions are 1..n without gaps, so this is the count. */
  messageCount: number;
  source: string;
  createdAt: Date;
  updatedAt: Date;
}

const schema = new Schema<SessionDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    sessionId: { type: String, required: true },
    agentId: { type: String, required: true },
    agentName: { type: String, required: true },
    agentVersion: { type: String, required: true },
    channel: { type: String, required: true },
    sessionType: { type: String, required: true },
    status: { type: String, required: true },
    startTime: { type: Date, required: true },
    endTime: Date,
    durationMs: Number,
    endReason: String,
    metadata: { type: Schema.Types.Mixed, default: {} },
    searchTerms: { type: [String], default: [] },
    messageCount: { type: Number, default: 0 },
    source: { type: String, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, minimize: false },
);
// Equality, then sort (startTime, _id), which also bounds a from/to range (ESR order).
// List without filters, list with from/to only, cursor walks, deep pages, export without filters.
schema.index({ orgId: 1, startTime: -1, _id: -1 });
// List/export with channel (+status, + from/to). Without a status filter the query adds
// `status: {$in: all four}` so MongoDB can merge the four sorted index ranges instead of sorting.
schema.index({ orgId: 1, channel: 1, status: 1, startTime: -1, _id: -1 });
// List/export with status only (e.g. the Active sessions), + from/to.
schema.index({ orgId: 1, status: 1, startTime: -1, _id: -1 });
// List/export of one agent's sessions, + from/to.
schema.index({ orgId: 1, agentId: 1, startTime: -1, _id: -1 });
// Search: an anchored, case-sensitive regex on lowercase terms gives tight bounds on this multikey
// index; the matches are then sorted by startTime (top-k sort of the page).
schema.index({ orgId: 1, searchTerms: 1 });

export function sessionModel(conn: Connection) {
  return modelOn<SessionDoc>(conn, 'Session', schema, 'sessions');
}
