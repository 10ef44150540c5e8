import { createHttpApp, type ReadinessCheck } from '@platform/kit';
import type { WorkflowDeps } from './deps.ts';
import { mountHookRoutes } from './routes/hook-routes.ts';
import { mountWorkflowRoutes } from './routes/workflow-routes.ts';

/** The workflow service's HTTP app (not listening). */
export function buildApp(deps: WorkflowDeps, readiness: ReadinessCheck[] = []) {
  return createHttpApp({
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    readiness,
    routes: (app) => {
      mountWorkflowRoutes(app, deps);
      mountHookRoutes(app, deps);
    },
  });
}
