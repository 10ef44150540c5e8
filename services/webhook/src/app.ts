import { createHttpApp, type ReadinessCheck } from '@platform/kit';
import type { WebhookDeps } from './deps.ts';
import { mountDeliveryRoutes } from './routes/delivery-routes.ts';
import { mountEndpointRoutes } from './routes/endpoint-routes.ts';
import { mountEventRoutes } from './routes/event-routes.ts';

/** The webhook service's HTTP app (not listening). */
export function buildApp(deps: WebhookDeps, readiness: ReadinessCheck[] = []) {
  return createHttpApp({
    logger: deps.logger,
    bodyLimit: deps.config.BODY_LIMIT,
    readiness,
    routes: (app) => {
      mountEndpointRoutes(app, deps);
      mountDeliveryRoutes(app, deps);
      mountEventRoutes(app, deps);
    },
  });
}
