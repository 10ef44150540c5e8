import { terminalStatuses, type Execution, type Identity } from '@platform/contracts';
import { ConflictError } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import { requestCancel } from '../engine/runner.ts';
import { findExecution } from './find-execution.ts';
import { requireWriter } from './roles.ts';
import { toExecution } from './views.ts';

/**
 * Cancels a queued or running execution. The request is stored and broadcast; the replica running
 * the execution aborts the step in progress at once, and a parked execution (delay, backoff, child)
 * is cancelled when it is next looked at (within EXECUTION_PARK_SLICE_MS). The answer is the
 * execution as it stands, with `cancelRequested: true`.
 */
export async function cancelExecution(
  deps: ExecutionDeps,
  identity: Identity,
  id: string,
): Promise<Execution> {
  requireWriter(identity);
  const doc = await findExecution(deps, identity.orgId, id);
  if (terminalStatuses.includes(doc.status)) {
    throw new ConflictError(
      `The execution already ${doc.status === 'cancelled' ? 'was cancelled' : doc.status}`,
    );
  }
  await requestCancel(deps, identity.orgId, id);
  return toExecution(doc, true);
}
