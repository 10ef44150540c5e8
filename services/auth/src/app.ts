import { createHttpApp, type ReadinessCheck } from '@platform/kit';
import type { AuthDeps } from './deps.ts';
import { mountApiKeyRoutes } from './routes/api-key-routes.ts';
import { mountAuthRoutes } from './routes/auth-routes.ts';
import { mountMemberRoutes } from './routes/member-routes.ts';

/** The auth service's HTTP app (not listening). */
export function buildApp(deps: AuthDeps, readiness: ReadinessCheck[] = []) {
  return createHttpApp({
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    readiness,
    routes: (app) => {
      mountAuthRoutes(app, deps);
      mountMemberRoutes(app, deps);
      mountApiKeyRoutes(app, deps);
    },
  });
}
