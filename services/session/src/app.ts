import { createHttpApp, type ReadinessCheck } from '@platform/kit';
import type { SessionDeps } from './deps.ts';
import { mountExportRoute } from './routes/export-route.ts';
import { mountSessionRoutes } from './routes/session-routes.ts';

/** The session service's HTTP app (not listening). */
export function buildApp(deps: SessionDeps, readiness: ReadinessCheck[] = []) {
  return createHttpApp({
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    readiness,
    routes: (app) => {
      // /export and /metrics are mounted before /{id}, which would otherwise take them as ids.
      mountExportRoute(app, deps);
      mountSessionRoutes(app, deps);
    },
  });
}
