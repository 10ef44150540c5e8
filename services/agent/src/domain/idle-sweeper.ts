import type { AgentDeps } from '../deps.ts';
import { conversationModel } from '../models/conversation.ts';
import { endConversation } from './end-conversation.ts';

/**
 * Completes Active sessions whose idle deadline passed (no turn for `idleTimeoutSeconds`). Every
 * replica sweeps; the session's lock (taken in endConversation) lets exactly one of them end each one.
 * Returns how many this replica ended.
 */
export async function sweepIdle(deps: AgentDeps): Promise<number> {
  const now = deps.now();
  const due = await conversationModel(deps.db)
    .find({ status: 'Active', idleDeadline: { $lte: now } }, { orgId: 1, lastActivityAt: 1 })
    .sort({ idleDeadline: 1 })
    .limit(200)
    .lean();
  let ended = 0;
  for (const doc of due) {
    const idleSeconds = Math.round((now.getTime() - doc.lastActivityAt.getTime()) / 1000);
    // A session that a turn holds is skipped (the turn moves the deadline); so is one ended meanwhile.
    const result = await endConversation(deps, doc.orgId, doc._id, {
      status: 'Completed',
      reason: 'idle timeout',
      event: { type: 'disconnection', details: { by: 'idle_timeout', idleSeconds } },
      onlyIfIdle: true,
    });
    if (result.ended) ended++;
  }
  return ended;
}

export function startIdleSweeper(deps: AgentDeps): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    deps.inFlight
      .run(() => sweepIdle(deps))
      .then((n) => n > 0 && deps.logger.info({ ended: n }, 'idle sessions completed'))
      .catch((err: Error) => deps.logger.warn({ err: err.message }, 'idle sweep failed; will retry'))
      .finally(() => {
        running = false;
      });
  }, deps.config.IDLE_SWEEP_MS);
  timer.unref();
  return () => clearInterval(timer);
}
