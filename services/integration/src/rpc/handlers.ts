import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { integrationRpc } from '@platform/contracts';
import { serveRpc, type InFlight } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { getIntegration } from '../domain/catalog.ts';
import { chatStream } from '../domain/chat-stream.ts';
import { getConnection } from '../domain/list-connections.ts';
import { runAction } from '../domain/run-action.ts';

/**
 * NATS request/reply handlers (queue group `integration`). Callers are other services, which pass the
 * organization they act for; every lookup is scoped by it.
 */
export function serveIntegrationRpc(
  nc: NatsConnection,
  deps: IntegrationDeps,
  inFlight: InFlight,
): Subscription[] {
  const options = { queue: 'integration', logger: deps.logger, inFlight };
  return [
    serveRpc(
      nc,
      integrationRpc.runAction,
      (req, { requestId, log }) =>
        runAction(
          deps,
          { ...req, requestId: req.requestId ?? requestId },
          log.child({ connectionId: req.connectionId, action: req.action }),
        ),
      options,
    ),
    serveRpc(
      nc,
      integrationRpc.chatStream,
      (req, { requestId, log }) =>
        chatStream(
          deps,
          { ...req, requestId: req.requestId ?? requestId },
          log.child({ connectionId: req.connectionId }),
        ),
      options,
    ),
    serveRpc(
      nc,
      integrationRpc.getConnection,
      (req) => getConnection(deps, req.orgId, req.connectionId),
      options,
    ),
    serveRpc(nc, integrationRpc.getIntegration, async (req) => getIntegration(req.id), options),
  ];
}
