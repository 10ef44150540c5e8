import type { Express } from 'express';
import { sessionRoutes, sessionSpecRoutes } from '@platform/contracts';
import { ConflictError, ForbiddenError, mountRoute, type RouteHandler } from '@platform/kit';
import type { SessionDeps } from '../deps.ts';
import { endSession } from '../domain/end-session.ts';
import { eventsPage, findSession, getSession, messagesPage } from '../domain/get-session.ts';
import { parseSessionId } from '../domain/keys.ts';
import { listSessions } from '../domain/list-sessions.ts';
import { getMetrics } from '../domain/metrics.ts';
import { toSummary } from '../domain/views.ts';

/**
 * Sessions under /api/v1, and the three reads also at the specification's /sessions paths.
 * /metrics is mounted before /{id}, which would otherwise take "metrics" for an id.
 */
export function mountSessionRoutes(app: Express, deps: SessionDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  const list: RouteHandler<typeof sessionRoutes.list> = ({ identity, query }) =>
    listSessions(deps, identity.orgId, query);
  const metrics: RouteHandler<typeof sessionRoutes.metrics> = ({ identity }) =>
    getMetrics(deps, identity.orgId);
  const get: RouteHandler<typeof sessionRoutes.get> = ({ identity, params, query }) =>
    getSession(deps, identity.orgId, params.id, query);
  for (const routes of [sessionRoutes, sessionSpecRoutes]) {
    mountRoute(app, routes.list, secret, list);
    mountRoute(app, routes.metrics, secret, metrics);
    mountRoute(app, routes.get, secret, get);
  }
  mountRoute(app, sessionRoutes.messages, secret, async ({ identity, params, query }) =>
    messagesPage(deps, await findSession(deps, identity.orgId, params.id), query.after, query.limit),
  );
  mountRoute(app, sessionRoutes.events, secret, async ({ identity, params, query }) =>
    eventsPage(deps, await findSession(deps, identity.orgId, params.id), query.cursor, query.limit),
  );
  mountRoute(app, sessionRoutes.end, secret, async ({ identity, params, body, requestId }) => {
    if (identity.role === 'viewer') throw new ForbiddenError('Viewers cannot end sessions');
    const sessionId =
      parseSessionId(params.id) ?? (await findSession(deps, identity.orgId, params.id)).sessionId;
    const outcome = await endSession(
      deps,
      { orgId: identity.orgId, sessionId, status: body.status, reason: body.reason },
      { whenMissing: 'not-found', requestId },
    );
    if (outcome.result === 'already') {
      throw new ConflictError(
        `The session is already ${outcome.session.status}; only an Active session can be ended`,
      );
    }
    return toSummary(outcome.session);
  });
}
