import type { Subscription } from '@nats-io/transport-node';
import { executionRpc } from '@platform/contracts';
import { serveRpc, type InFlight } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import { startExecution } from '../domain/create-execution.ts';
import { getExecution } from '../domain/get-execution.ts';
import { newExecutionId } from '../domain/retry-execution.ts';
import { toExecution } from '../domain/views.ts';

/** NATS request/reply handlers of the execution service (queue group `execution`). */
export function serveExecutionRpc(deps: ExecutionDeps, inFlight: InFlight): Subscription[] {
  const options = { queue: 'execution', logger: deps.logger, inFlight };
  return [
    serveRpc(
      deps.nc,
      executionRpc.start,
      async (req, { requestId }) => {
        const doc = await startExecution(
          deps,
          {
            id: req.executionId ?? newExecutionId(),
            orgId: req.orgId,
            workflow: req.workflow,
            input: req.input,
            trigger: req.trigger,
            createdAt: new Date().toISOString(),
          },
          { requestId, freshId: req.executionId === undefined },
        );
        return toExecution(doc);
      },
      options,
    ),
    // The same read as GET /executions/{id}: scoped by the organization (another's is not found).
    serveRpc(deps.nc, executionRpc.get, (req) => getExecution(deps, req.orgId, req.executionId), options),
  ];
}
