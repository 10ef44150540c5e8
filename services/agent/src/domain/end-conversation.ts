import type { SessionEventCommand } from '@platform/contracts';
import { ConflictError, NotFoundError } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { endCommand, eventCommand, eventDetails } from '../bookkeeping/commands.ts';
import { findConversation } from '../models/conversation.ts';
import { sessionLockKey } from './conversations.ts';
import { addressedTo } from './handoff.ts';
import { tryLock } from './locks.ts';

export interface EndInput {
  status: 'Completed' | 'Cancelled';
  reason: string;
  /** The system event recorded before the end (a disconnection). */
  event: {
    type: SessionEventCommand['type'];
    details: Record<string, string | number | boolean | null | undefined>;
  };
  requestId?: string;
  /** Only if the idle deadline passed (the sweeper): a turn that just finished keeps the session. */
  onlyIfIdle?: boolean;
}

export type EndOutcome =
  { ended: true; endedAt: Date } | { ended: false; why: 'busy' | 'not_active' | 'not_idle'; status?: string };

/**
 * Ends an Active session that no turn holds: whoever takes the session's lock first (the user's end,
 * the idle sweeper of any replica) finds it Active and ends it; the others find it locked or ended. The
 * end command's id is fixed per session, so even a repeated publish ends it once.
 */
export async function endConversation(
  deps: AgentDeps,
  orgId: string,
  sessionId: string,
  input: EndInput,
): Promise<EndOutcome> {
  const lock = await tryLock(deps.db, sessionLockKey(sessionId), deps.config.TURN_LEASE_MS, deps.logger, {
    onlyIfFree: input.onlyIfIdle,
  });
  if (!lock) return { ended: false, why: 'busy' };
  try {
    const doc = await findConversation(deps.db, orgId, sessionId);
    if (!doc || doc.status !== 'Active') return { ended: false, why: 'not_active', status: doc?.status };
    const now = deps.now();
    if (input.onlyIfIdle && (!doc.idleDeadline || doc.idleDeadline.getTime() > now.getTime())) {
      return { ended: false, why: 'not_idle' };
    }
    const at = now.toISOString();
    const number = doc.eventCount + 1;
    const queue = [
      ...doc.pending,
      eventCommand(
        {
          orgId,
          sessionId,
          type: input.event.type,
          timestamp: at,
          details: eventDetails(input.event.details),
        },
        number,
      ),
      endCommand({ orgId, sessionId, status: input.status, endTime: at, reason: input.reason }),
    ];
    await deps.sessionLog.commit(
      doc,
      {
        status: input.status,
        endReason: input.reason,
        endedAt: now,
        idleDeadline: null,
        eventCount: number,
      },
      queue,
      input.requestId,
    );
    return { ended: true, endedAt: now };
  } finally {
    await lock.release();
  }
}

/** POST /agents/{id}/sessions/{sessionId}/end: the client or user closes the conversation. */
export async function endByUser(
  deps: AgentDeps,
  orgId: string,
  agentId: string,
  sessionId: string,
  body: { status: 'completed' | 'cancelled'; reason?: string },
  requestId: string,
) {
  const doc = await findConversation(deps.db, orgId, sessionId);
  if (!doc || !addressedTo(doc, agentId))
    throw new NotFoundError(`Agent ${agentId} has no session ${sessionId}`);
  if (doc.status !== 'Active') throw new ConflictError(`The session is already ${doc.status}`);
  const status: 'Completed' | 'Cancelled' = body.status === 'cancelled' ? 'Cancelled' : 'Completed';
  const reason = body.reason || (status === 'Cancelled' ? 'cancelled by the user' : 'completed by the user');
  const outcome = await endConversation(deps, orgId, sessionId, {
    status,
    reason,
    event: { type: 'disconnection', details: { by: 'user', reason } },
    requestId,
  });
  if (!outcome.ended) {
    throw new ConflictError(
      outcome.why === 'busy'
        ? 'A turn of this session is in progress; end it when the turn has answered'
        : `The session is already ${outcome.status ?? 'ended'}`,
    );
  }
  return { sessionId, status, reason, endedAt: outcome.endedAt.toISOString() };
}
