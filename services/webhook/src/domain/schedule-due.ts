import type { WebhookDeps } from '../deps.ts';
import { retryModel, type RetryDoc } from '../models/retry.ts';
import { publishJobs } from './enqueue.ts';

/**
 * Publishes the attempts whose time has come, then forgets them. A system job over every
 * organization; replicas may run it at once (the Nats-Msg-Id makes a second publish a no-op), and a
 * crash between publishing and deleting only publishes again. Returns how many were due.
 */
export async function queueDueAttempts(deps: WebhookDeps, limit = 500): Promise<number> {
  const retries = retryModel(deps.db);
  const due = await retries
    .find({ dueAt: { $lte: new Date() } })
    .sort({ dueAt: 1 })
    .limit(limit)
    .lean<RetryDoc[]>();
  if (due.length === 0) return 0;
  const jobs = due.map((r) => ({
    _id: r.deliveryId,
    orgId: r.orgId,
    endpointId: r.endpointId,
    nextAttempt: r.attempt,
  }));
  const failed = new Set((await publishJobs(deps, jobs)).map((j) => `${j._id}:${j.nextAttempt}`));
  await Promise.all(due.filter((r) => !failed.has(r._id)).map((r) => retries.deleteOne({ _id: r._id })));
  return failed.size === 0 ? due.length : 0;
}
