import { randomUUID } from 'node:crypto';
import type { SessionMessage, SessionMetadata } from '@platform/contracts';
import { ConflictError, NotFoundError, ValidationError, type Logger } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { eventCommand, eventDetails, messageCommand, startCommand } from '../bookkeeping/commands.ts';
import {
  conversationModel,
  findConversation,
  updateConversation,
  type ConversationDoc,
  type PendingCommand,
} from '../models/conversation.ts';
import { addressedTo } from './handoff.ts';
import { lockWithin, tryLock, type Lock } from './locks.ts';
import { remoteStatus } from './session-state.ts';

/**
 * A turn in progress: it holds the session's lock (kept alive while the turn runs), so it alone numbers
 * messages and events (no gaps, no repeats) and writes the session's record.
 */
export interface TurnLease {
  conv: ConversationDoc;
  lock: Lock;
  turn: number;
  isNew: boolean;
  /** The messages this turn added before the model ran (greeting, user message). */
  messages: SessionMessage[];
  /** Commands queued and not yet published (the next write of the record carries them). */
  unpublished: PendingCommand[];
}

export const sessionLockKey = (sessionId: string) => `session:${sessionId}`;

const message = (position: number, sender: 'user' | 'agent', content: string, at: Date): SessionMessage => ({
  position,
  sender,
  content,
  timestamp: at.toISOString(),
});

export interface OpenInput {
  orgId: string;
  agentId: string;
  agentName: string;
  agentVersion: number;
  channel: string;
  sessionType: string;
  metadata: SessionMetadata;
  greeting: string | null;
  idleTimeoutSeconds: number;
  userMessage: string;
  requestId: string;
}

/** Starts a session: its record, held by the first turn, with start, connection and first messages queued. */
export async function openConversation(deps: AgentDeps, input: OpenInput): Promise<TurnLease> {
  const sessionId = randomUUID();
  const lock = await tryLock(deps.db, sessionLockKey(sessionId), deps.config.TURN_LEASE_MS, deps.logger);
  if (!lock) throw new ConflictError('The new session could not be started; retry'); // a random UUID: never
  lock.keepAlive();
  try {
    const now = deps.now();
    const { orgId } = input;
    const messages: SessionMessage[] = [];
    if (input.greeting) messages.push(message(1, 'agent', input.greeting, now));
    messages.push(message(messages.length + 1, 'user', input.userMessage, now));
    const pending: PendingCommand[] = [
      startCommand({
        orgId,
        sessionId,
        agentId: input.agentId,
        agentName: input.agentName,
        agentVersion: String(input.agentVersion),
        channel: input.channel as never,
        sessionType: input.sessionType as never,
        startTime: now.toISOString(),
        metadata: input.metadata,
      }),
      eventCommand(
        {
          orgId,
          sessionId,
          type: 'connection_established',
          timestamp: now.toISOString(),
          details: eventDetails({
            channel: input.channel,
            sessionType: input.sessionType,
            agentVersion: input.agentVersion,
          }),
        },
        1,
      ),
      ...messages.map((m) => messageCommand({ orgId, sessionId, ...m })),
    ];
    const doc = await conversationModel(deps.db).create({
      _id: sessionId,
      orgId,
      agentId: input.agentId,
      agentVersion: input.agentVersion,
      agentName: input.agentName,
      channel: input.channel,
      sessionType: input.sessionType,
      status: 'Active',
      endReason: null,
      startedAt: now,
      endedAt: null,
      lastActivityAt: now,
      idleDeadline: new Date(now.getTime() + input.idleTimeoutSeconds * 1000),
      turns: 0,
      lastPosition: messages.length,
      eventCount: 1,
      pending,
      pendingSince: now,
    });
    const unpublished = await deps.sessionLog.publish(pending, input.requestId);
    return { conv: doc.toObject(), lock, turn: 1, isNew: true, messages, unpublished };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

export interface ContinueInput {
  orgId: string;
  agentId: string;
  sessionId: string;
  userMessage: string;
  channel?: string;
  sessionType?: string;
  metadata?: SessionMetadata;
  requestId: string;
  log: Logger;
}

function checkContinuation(doc: ConversationDoc, input: ContinueInput) {
  const errors = [];
  if (input.channel && input.channel !== doc.channel) {
    errors.push({
      field: 'channel',
      message: `must be ${doc.channel}, the session's channel`,
      location: 'body' as const,
    });
  }
  if (input.sessionType && input.sessionType !== doc.sessionType) {
    errors.push({
      field: 'sessionType',
      message: `must be ${doc.sessionType}, the session's type`,
      location: 'body' as const,
    });
  }
  if (input.metadata) {
    errors.push({
      field: 'metadata',
      message: 'is attached when a session starts, not later',
      location: 'body' as const,
    });
  }
  if (errors.length > 0) throw new ValidationError(errors);
}

/**
 * Takes the next turn of an Active session of this agent. 404: not a session this agent started, or
 * answers after a handoff, in this organization; 400: channel, type or metadata that do not fit a
 * continued session; 409: the session ended (here or in the session service) or another turn holds it.
 */
export async function acquireTurn(deps: AgentDeps, input: ContinueInput): Promise<TurnLease> {
  const { orgId, sessionId } = input;
  // The record is read under the lock only (reads are not cheap on FerretDB); a short wait rides out the
  // relay or the sweeper looking at the session, while a turn in progress is a 409.
  const lock = await lockWithin(
    deps.db,
    sessionLockKey(sessionId),
    deps.config.TURN_LEASE_MS,
    deps.config.TURN_LOCK_WAIT_MS,
    deps.logger,
  );
  const doc = await findConversation(deps.db, orgId, sessionId);
  const notFound = () => new NotFoundError(`Agent ${input.agentId} has no session ${sessionId}`);
  if (!lock) {
    if (!doc || !addressedTo(doc, input.agentId)) throw notFound();
    if (doc.status !== 'Active') throw new ConflictError(`The session is ${doc.status}; start a new one`);
    throw new ConflictError('Another turn of this session is in progress; retry when it has answered');
  }
  try {
    if (!doc || !addressedTo(doc, input.agentId)) throw notFound();
    checkContinuation(doc, input);
    if (doc.status !== 'Active') throw new ConflictError(`The session is ${doc.status}; start a new one`);
    const remote = await remoteStatus(deps, orgId, sessionId, input.requestId, input.log);
    if (remote && remote !== 'Active') {
      // Ended in the session service: our record follows (no end command: the session service knows).
      await updateConversation(deps.db, doc, {
        $set: {
          status: remote,
          endReason: 'ended in the session service',
          endedAt: deps.now(),
          idleDeadline: null,
        },
      });
      throw new ConflictError(`The session is ${remote}; start a new one`);
    }
    lock.keepAlive();
    const now = deps.now();
    const userMessage = message(doc.lastPosition + 1, 'user', input.userMessage, now);
    const pending = [...doc.pending, messageCommand({ orgId, sessionId, ...userMessage })];
    await updateConversation(deps.db, doc, {
      $set: { lastPosition: userMessage.position, pending, pendingSince: pending[0]!.at },
    });
    const unpublished = await deps.sessionLog.publish(pending, input.requestId);
    const conv = { ...doc, lastPosition: userMessage.position, pending };
    return { conv, lock, turn: doc.turns + 1, isNew: false, messages: [userMessage], unpublished };
  } catch (err) {
    await lock.release();
    throw err;
  }
}
