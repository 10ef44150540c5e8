import { createHttpApp, type ReadinessCheck } from '@platform/kit';
import type { AuthDeps } from './deps.ts';
import { mountAuthRoutes } from './routes/auth-routes.ts';

/** The auth service's HTTP app (not listening). */
export function buildApp(deps: AuthDeps, readiness: ReadinessCheck[] = []) {
  return createHttpApp({
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    readiness,
    routes: (app) => {
      mountAuthRoutes(app, deps);
    },
  });
}
