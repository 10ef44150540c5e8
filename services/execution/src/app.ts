import { createHttpApp, type ReadinessCheck } from '@platform/kit';
import type { ExecutionDeps } from './deps.ts';
import { mountExecutionRoutes } from './routes/execution-routes.ts';

/** The execution service's HTTP app (not listening). */
export function buildApp(deps: ExecutionDeps, readiness: ReadinessCheck[] = []) {
  return createHttpApp({
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    readiness,
    routes: (app) => {
      mountExecutionRoutes(app, deps);
    },
  });
}
