import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { agentStepRpc } from '@platform/contracts';
import { serveRpc, type InFlight } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { invokeFromWorkflow } from '../domain/invoke-from-workflow.ts';

/** NATS request/reply handlers of the agent service (queue group `agent`). */
export function serveAgentRpc(nc: NatsConnection, deps: AgentDeps, inFlight: InFlight): Subscription[] {
  const options = { queue: 'agent', logger: deps.logger, inFlight };
  return [serveRpc(nc, agentStepRpc.invoke, (req, ctx) => invokeFromWorkflow(deps, req, ctx), options)];
}
