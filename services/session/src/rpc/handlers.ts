import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { sessionRpc } from '@platform/contracts';
import { serveRpc, type InFlight } from '@platform/kit';
import type { SessionDeps } from '../deps.ts';
import { findSession } from '../domain/get-session.ts';
import { getMetrics } from '../domain/metrics.ts';
import { recountMetrics } from '../domain/recount.ts';
import { toSummary } from '../domain/views.ts';

/** NATS request/reply handlers of the session service (queue group `session`). */
export function serveSessionRpc(nc: NatsConnection, deps: SessionDeps, inFlight: InFlight): Subscription[] {
  const options = { queue: 'session', logger: deps.logger, inFlight };
  return [
    serveRpc(
      nc,
      sessionRpc.get,
      async ({ orgId, sessionId }) => {
        const s = await findSession(deps, orgId, sessionId);
        return { ...toSummary(s), lastPosition: s.messageCount ?? 0 };
      },
      options,
    ),
    serveRpc(nc, sessionRpc.metrics, ({ orgId }) => getMetrics(deps, orgId), options),
    serveRpc(nc, sessionRpc.recount, ({ orgId }) => recountMetrics(deps, orgId), options),
  ];
}
