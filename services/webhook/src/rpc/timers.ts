import type { WebhookDeps } from '../deps.ts';
import { purgeOld } from '../domain/retention.ts';
import { queueDueAttempts } from '../domain/schedule-due.ts';

/** Periodic jobs: queueing due retries (every WEBHOOK_SCHEDULER_INTERVAL) and the hourly retention purge. */
export function startTimers(deps: WebhookDeps): { stop(): void } {
  let scheduling = false;
  const schedule = async () => {
    if (scheduling) return;
    scheduling = true;
    try {
      // Keep going while full pages come back, so a large backlog drains without waiting.
      while ((await queueDueAttempts(deps)) === 500);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'could not queue due webhook attempts; will retry');
    } finally {
      scheduling = false;
    }
  };
  const purge = () =>
    purgeOld(deps).catch((err) =>
      deps.logger.warn({ err: (err as Error).message }, 'webhook retention purge failed; will retry'),
    );
  const timers = [
    setInterval(() => void schedule(), deps.config.WEBHOOK_SCHEDULER_INTERVAL),
    setInterval(() => void purge(), 3_600_000),
  ];
  for (const t of timers) t.unref();
  void schedule();
  void purge();
  return { stop: () => timers.forEach(clearInterval) };
}
