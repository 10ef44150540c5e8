import type { AgentDeps } from '../deps.ts';
import { eventCommand } from '../bookkeeping/commands.ts';
import { findConversation, type PendingCommand } from '../models/conversation.ts';
import { sessionLockKey } from './conversations.ts';
import { lockWithin } from './locks.ts';

/**
 * A client of a streamed turn that went away before the stream ended. The turn goes on and the session
 * gets the whole reply; the departure is a `disconnection` system event `{by: client, during: stream}`,
 * recorded once: in the turn's own final write when the client was already gone then (the usual case),
 * else, when it left between that write and the end of the stream, on its own afterwards.
 */
export function clientDisconnectionEvent(
  orgId: string,
  sessionId: string,
  timestamp: string,
  number: number,
): PendingCommand {
  const details = { by: 'client', during: 'stream' };
  return eventCommand({ orgId, sessionId, type: 'disconnection', timestamp, details }, number);
}

/** Records the event after the turn (under the session's lock, as every writer of the record). */
export async function recordClientDisconnection(
  deps: AgentDeps,
  orgId: string,
  sessionId: string,
  requestId: string,
): Promise<boolean> {
  const { TURN_LEASE_MS, TURN_LOCK_WAIT_MS } = deps.config;
  const key = sessionLockKey(sessionId);
  const lock = await lockWithin(deps.db, key, TURN_LEASE_MS, TURN_LOCK_WAIT_MS, deps.logger);
  if (!lock) {
    deps.logger.warn({ sessionId }, 'session busy: the disconnection of a streaming client is not recorded');
    return false;
  }
  try {
    const doc = await findConversation(deps.db, orgId, sessionId);
    if (!doc) return false;
    const number = doc.eventCount + 1;
    const event = clientDisconnectionEvent(orgId, sessionId, deps.now().toISOString(), number);
    await deps.sessionLog.commit(doc, { eventCount: number }, [...doc.pending, event], requestId);
    return true;
  } finally {
    await lock.release();
  }
}
