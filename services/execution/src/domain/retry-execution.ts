import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { workflowRpc, type Execution, type Identity, type RetryBody, type Step } from '@platform/contracts';
import { ConflictError, NotFoundError, rpcRequest } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import { executionModel, type ExecutionDoc } from '../models/execution.ts';
import { startExecution } from './create-execution.ts';
import { findExecution } from './find-execution.ts';
import { requireWriter } from './roles.ts';
import { toExecution } from './views.ts';

export const newExecutionId = () => `exe_${randomUUID().replace(/-/g, '')}`;

/** Steps whose outputs a retry from the failed step keeps: succeeded, and defined the same way. */
function reusableSteps(old: ExecutionDoc, steps: Step[]): string[] {
  const before = new Map((JSON.parse(old.stepsJson) as Step[]).map((s) => [s.id, JSON.stringify(s)]));
  return old.steps
    .filter((s) => s.status === 'succeeded')
    .map((s) => s.id)
    .filter((id) => {
      const now = steps.find((s) => s.id === id);
      return now !== undefined && before.get(id) === JSON.stringify(now);
    });
}

/**
 * A new execution linked both ways to a failed or cancelled one: of the same version or the
 * latest, from the start or from the failed step (the outputs of the steps that succeeded are kept
 * and those steps are not run again). A deleted workflow runs no more: 409.
 */
export async function retryExecution(
  deps: ExecutionDeps,
  identity: Identity,
  id: string,
  body: z.infer<typeof RetryBody>,
  requestId: string,
): Promise<Execution> {
  requireWriter(identity);
  const old = await findExecution(deps, identity.orgId, id);
  if (old.status !== 'failed' && old.status !== 'cancelled') {
    throw new ConflictError(`Only failed or cancelled executions can be retried (this one is ${old.status})`);
  }
  const workflow = await rpcRequest(
    deps.nc,
    workflowRpc.getDefinition,
    {
      orgId: identity.orgId,
      workflowId: old.workflowId,
      ...(body.version === 'same' ? { version: old.workflowVersion } : {}),
    },
    { timeoutMs: 10_000, requestId },
  ).catch((err: unknown) => {
    if (err instanceof NotFoundError)
      throw new ConflictError('The workflow was deleted; its executions cannot run again');
    throw err;
  });
  const reuse = body.from === 'failed-step' ? reusableSteps(old, workflow.steps) : [];
  const doc = await startExecution(
    deps,
    {
      id: newExecutionId(),
      orgId: identity.orgId,
      workflow,
      input: JSON.parse(old.inputJson) as unknown,
      trigger: { kind: 'retry' },
      createdAt: new Date().toISOString(),
      retryOf: old._id,
      ...(reuse.length > 0 ? { reuse: { fromExecutionId: old._id, stepIds: reuse } } : {}),
    },
    { requestId },
  );
  // The old execution is finished: no runner writes it any more, so this update is safe.
  await executionModel(deps.db).updateOne({ _id: old._id }, { $push: { retriedBy: doc._id } });
  return toExecution(doc);
}
