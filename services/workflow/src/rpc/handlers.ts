import type { Subscription } from '@nats-io/transport-node';
import { workflowRpc } from '@platform/contracts';
import { serveRpc, type InFlight } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { getDefinition } from '../domain/get-definition.ts';

/** NATS request/reply handlers of the workflow service (queue group `workflow`). */
export function serveWorkflowRpc(deps: WorkflowDeps, inFlight: InFlight): Subscription[] {
  const options = { queue: 'workflow', logger: deps.logger, inFlight };
  return [
    serveRpc(
      deps.nc,
      workflowRpc.getDefinition,
      ({ orgId, workflowId, version }) => getDefinition(deps, orgId, workflowId, version),
      options,
    ),
  ];
}
