import { executionRpc, type Execution, type ExecutionTrigger } from '@platform/contracts';
import { rpcRequest } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import type { WorkflowDoc } from '../models/workflow.ts';
import { toSnapshot } from './views.ts';

/**
 * Asks the execution service to queue an execution of the workflow's current version; the
 * snapshot travels with the request, so the execution runs exactly what was current now.
 * `executionId` makes a repeated request (schedule tick, event redelivery) start one execution.
 */
export function requestExecution(
  deps: WorkflowDeps,
  workflow: WorkflowDoc,
  input: unknown,
  trigger: ExecutionTrigger,
  options: { executionId?: string; requestId?: string } = {},
): Promise<Execution> {
  return rpcRequest(
    deps.nc,
    executionRpc.start,
    {
      orgId: workflow.orgId,
      ...(options.executionId ? { executionId: options.executionId } : {}),
      workflow: toSnapshot(workflow),
      input: input ?? {},
      trigger,
    },
    {
      timeoutMs: deps.config.START_TIMEOUT_MS,
      ...(options.requestId ? { requestId: options.requestId } : {}),
    },
  );
}
