import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/** A session command waiting to be published to the session service (kept in order). */
export interface PendingCommand {
  /** Idempotency id of the command, also its Nats-Msg-Id. */
  id: string;
  kind: 'start' | 'message' | 'event' | 'end';
  /** The command as JSON. */
  payload: string;
  /** When it was queued (the relay leaves fresh commands to the turn publishing them). */
  at: Date;
}

export type ConversationStatus = 'Active' | 'Completed' | 'Failed' | 'Cancelled';

/**
 * This service's side of a session it started: the agent version it talks to, the numbering of its
 * messages and events (this service is the session's only publisher), the idle deadline, and the queue
 * of session commands not yet published. A change of state and the commands that tell the session
 * service about it are written in one update of this document, so nothing is numbered twice or lost
 * between them. Only the holder of the session's lock (`session:<id>`, see domain/locks.ts) writes it:
 * a turn, an end, or the relay.
 */
export interface ConversationDoc {
  _id: string;
  orgId: string;
  /** The agent that started the session (the session service records it; it never changes there). */
  agentId: string;
  agentVersion: number;
  agentName: string;
  /**
   * After a handoff: the agent that answers the session now, at the version pinned when it took over.
   * Null (or absent in older records): the starting agent.
   */
  currentAgentId?: string | null;
  currentAgentVersion?: number | null;
  currentAgentName?: string | null;
  channel: string;
  sessionType: string;
  status: ConversationStatus;
  endReason: string | null;
  startedAt: Date;
  endedAt: Date | null;
  lastActivityAt: Date;
  /** When the session is Completed for idleness; null once ended. */
  idleDeadline: Date | null;
  /** Completed turns. */
  turns: number;
  /** Highest message position given out. */
  lastPosition: number;
  /** System events given out (numbers their command ids). */
  eventCount: number;
  pending: PendingCommand[];
  /** Oldest unpublished command's time; far in the future when nothing waits (the relay's query). */
  pendingSince: Date;
  /** The model's view of the latest turns, JSON (domain/context-store.ts). */
  context: string;
}

/** `pendingSince` when nothing waits. */
export const NOTHING_PENDING = new Date('9999-12-31T00:00:00Z');

const pendingSchema = new Schema<PendingCommand>(
  {
    id: { type: String, required: true },
    kind: { type: String, required: true },
    payload: { type: String, required: true },
    at: { type: Date, required: true },
  },
  { _id: false },
);

const schema = new Schema<ConversationDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    agentId: { type: String, required: true },
    agentVersion: { type: Number, required: true },
    agentName: { type: String, required: true },
    currentAgentId: { type: String, default: null },
    currentAgentVersion: { type: Number, default: null },
    currentAgentName: { type: String, default: null },
    channel: { type: String, required: true },
    sessionType: { type: String, required: true },
    status: { type: String, required: true },
    endReason: { type: String, default: null },
    startedAt: { type: Date, required: true },
    endedAt: { type: Date, default: null },
    lastActivityAt: { type: Date, required: true },
    idleDeadline: { type: Date, default: null },
    turns: { type: Number, default: 0 },
    lastPosition: { type: Number, default: 0 },
    eventCount: { type: Number, default: 0 },
    pending: { type: [pendingSchema], default: [] },
    pendingSince: { type: Date, default: NOTHING_PENDING },
    context: { type: String, default: '' },
  },
  { versionKey: false },
);
// The idle sweeper (all organizations): Active sessions whose idle deadline passed.
schema.index({ status: 1, idleDeadline: 1 });
// The command relay (all organizations): sessions with commands unpublished for a while.
schema.index({ pendingSince: 1 });
// Every other read and write is by `_id` (the session id) alone: findConversation, updateConversation.

export function conversationModel(conn: Connection) {
  return modelOn<ConversationDoc>(conn, 'Conversation', schema, 'conversations');
}

/**
 * A session's record in the organization, or null (another organization's is null too). Read by
 * `_id` alone and the organization compared here: FerretDB 1.24 uses an index only for a filter on
 * `_id` alone, and a filter with `orgId` as well read the whole collection, contexts included, on
 * every turn (measured: bench/invoke slowed to seconds per turn as sessions accumulated).
 */
export async function findConversation(
  conn: Connection,
  orgId: string,
  sessionId: string,
  fields?: Partial<Record<keyof ConversationDoc, 1>>,
): Promise<ConversationDoc | null> {
  const doc = await conversationModel(conn)
    .findById(sessionId, fields ? { ...fields, orgId: 1 } : undefined)
    .lean<ConversationDoc>();
  return doc && doc.orgId === orgId ? doc : null;
}

/**
 * Changes a record that the caller read with findConversation (so its organization was checked)
 * and whose session lock it holds; by `_id` alone for the reason given there.
 */
export function updateConversation(
  conn: Connection,
  checked: Pick<ConversationDoc, '_id' | 'orgId'>,
  update: Record<string, unknown>,
) {
  return conversationModel(conn).updateOne({ _id: checked._id }, update);
}
