import { createHttpApp, type ReadinessCheck } from '@platform/kit';
import type { AgentDeps } from './deps.ts';
import { mountAgentRoutes } from './routes/agent-routes.ts';
import { mountInvokeRoutes } from './routes/invoke-routes.ts';

/** The agent service's HTTP app (not listening). */
export function buildApp(deps: AgentDeps, readiness: ReadinessCheck[] = []) {
  return createHttpApp({
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    readiness,
    routes: (app) => {
      mountAgentRoutes(app, deps);
      mountInvokeRoutes(app, deps);
    },
  });
}
