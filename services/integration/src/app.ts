import { createHttpApp, type ReadinessCheck } from '@platform/kit';
import type { IntegrationDeps } from './deps.ts';
import { mountConnectionRoutes } from './routes/connection-routes.ts';
import { mountIntegrationRoutes } from './routes/integration-routes.ts';

/** The integration service's HTTP app (not listening). */
export function buildApp(deps: IntegrationDeps, readiness: ReadinessCheck[] = []) {
  return createHttpApp({
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    readiness,
    routes: (app) => {
      mountIntegrationRoutes(app, deps);
      mountConnectionRoutes(app, deps);
    },
  });
}
