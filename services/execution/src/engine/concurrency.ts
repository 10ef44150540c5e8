import type { ExecutionDeps } from '../deps.ts';
import { slotIdOf, slotModel } from '../models/slot.ts';

/**
 * Takes one of the workflow's `limit` slots for an execution, or answers undefined when all are
 * taken (the execution stays queued and looks again later). A slot this execution already holds
 * (taken just before a crash) is found and kept.
 */
export async function acquireSlot(
  deps: ExecutionDeps,
  execution: { _id: string; orgId: string; workflowId: string },
  limit: number,
): Promise<string | undefined> {
  const slots = slotModel(deps.db);
  const ids = Array.from({ length: limit }, (_, n) => slotIdOf(execution.orgId, execution.workflowId, n));
  const taken = await slots.find({ _id: { $in: ids } }).lean();
  const mine = taken.find((s) => s.executionId === execution._id);
  if (mine) return mine._id;
  const takenIds = new Set(taken.map((s) => s._id));
  for (const id of ids) {
    if (takenIds.has(id)) continue;
    try {
      await slots.create({
        _id: id,
        orgId: execution.orgId,
        workflowId: execution.workflowId,
        executionId: execution._id,
        acquiredAt: new Date(),
      });
      return id;
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
    }
  }
  return undefined;
}

/** Frees the slot if this execution still holds it. */
export async function releaseSlot(deps: ExecutionDeps, slotId: string, executionId: string): Promise<void> {
  const slots = slotModel(deps.db);
  const slot = await slots.findById(slotId).lean();
  if (slot?.executionId === executionId) await slots.deleteOne({ _id: slotId });
}
