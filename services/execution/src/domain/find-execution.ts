import { NotFoundError } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import { cancelRequestModel } from '../models/cancel-request.ts';
import { executionModel, type ExecutionDoc } from '../models/execution.ts';

/**
 * An execution of the organization, or 404. Looked up by `_id` alone and the organization checked
 * here: FerretDB uses an index only for a filter on `_id` alone, any other filter scans the
 * collection. Another organization's execution is answered exactly like a missing one.
 */
export async function findExecution(
  deps: ExecutionDeps,
  orgId: string,
  id: string,
  options: { logs?: boolean } = {},
): Promise<ExecutionDoc> {
  const query = executionModel(deps.db).findById(id);
  if (options.logs) query.select('+logs');
  const doc = await query.lean<ExecutionDoc>();
  if (!doc || doc.orgId !== orgId) throw new NotFoundError('Execution not found');
  return doc;
}

/** Whether a cancel was asked for an execution the engine has not finished yet. */
export async function cancelPending(deps: ExecutionDeps, doc: ExecutionDoc): Promise<boolean> {
  if (doc.cancelRequestedAt || doc.status === 'succeeded' || doc.status === 'failed') return false;
  return (await cancelRequestModel(deps.db).exists({ _id: doc._id })) !== null;
}
