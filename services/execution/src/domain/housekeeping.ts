import { terminalStatuses } from '@platform/contracts';
import type { ExecutionDeps } from '../deps.ts';
import { cancelRequestModel } from '../models/cancel-request.ts';
import { executionModel } from '../models/execution.ts';
import { slotModel } from '../models/slot.ts';

/**
 * Background jobs of every replica (system-wide, so not scoped by organization):
 * - retention: finished executions older than EXECUTION_RETENTION_DAYS are deleted (0: never);
 * - slots held by executions that finished or vanished are freed;
 * - cancel requests older than a day (their executions finished long ago) are removed.
 */
export async function housekeeping(deps: ExecutionDeps): Promise<{ deleted: number; freedSlots: number }> {
  let deleted = 0;
  const days = deps.config.EXECUTION_RETENTION_DAYS;
  if (days > 0) {
    const cutoff = new Date(Date.now() - days * 86_400_000);
    const res = await executionModel(deps.db).deleteMany({
      status: { $in: terminalStatuses },
      finishedAt: { $lt: cutoff },
    });
    deleted = res.deletedCount;
  }
  let freedSlots = 0;
  const slots = await slotModel(deps.db)
    .find({ acquiredAt: { $lt: new Date(Date.now() - 60_000) } })
    .lean();
  for (const slot of slots) {
    const holder = await executionModel(deps.db).findById(slot.executionId).lean();
    if (!holder || terminalStatuses.includes(holder.status)) {
      await slotModel(deps.db).deleteOne({ _id: slot._id });
      freedSlots++;
    }
  }
  await cancelRequestModel(deps.db).deleteMany({ requestedAt: { $lt: new Date(Date.now() - 86_400_000) } });
  return { deleted, freedSlots };
}

export function startHousekeeping(deps: ExecutionDeps): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    housekeeping(deps)
      .then((r) => {
        if (r.deleted || r.freedSlots) deps.logger.info(r, 'housekeeping');
      })
      .catch((err: unknown) =>
        deps.logger.warn({ err: (err as Error).message }, 'housekeeping failed; will retry'),
      )
      .finally(() => {
        running = false;
      });
  }, deps.config.HOUSEKEEPING_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
