import type { Execution, Identity } from '@platform/contracts';
import { withIdempotency } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { requestExecution } from './request-execution.ts';
import { requireWriter } from './roles.ts';
import { findWorkflowToRun } from './workflow-cache.ts';

/**
 * POST /workflows/{id}/execute: queues an execution (any trigger kind, active or not). With an
 * Idempotency-Key the same key within 24 h answers the first execution; other input is a 409.
 */
export async function executeWorkflow(
  deps: WorkflowDeps,
  identity: Identity,
  id: string,
  input: unknown,
  key: string | undefined,
  requestId: string,
): Promise<Execution> {
  requireWriter(identity);
  const workflow = await findWorkflowToRun(deps, identity.orgId, id);
  const { result } = await withIdempotency(
    deps.db,
    { orgId: identity.orgId, scope: `execute:${id}`, key, request: { input: input ?? {} } },
    () => requestExecution(deps, workflow, input ?? {}, { kind: 'manual' }, { requestId }),
  );
  return result;
}
