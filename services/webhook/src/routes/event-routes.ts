import type { Express } from 'express';
import { webhookRoutes } from '@platform/contracts';
import { mountRoute } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { listEventTypes } from '../domain/event-types.ts';
import { getEvent, listEvents } from '../domain/events.ts';

export function mountEventRoutes(app: Express, deps: WebhookDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, webhookRoutes.listEvents, secret, ({ identity, query }) =>
    listEvents(deps, identity, query),
  );
  mountRoute(app, webhookRoutes.getEvent, secret, ({ identity, params }) =>
    getEvent(deps, identity, params.id),
  );
  mountRoute(app, webhookRoutes.listEventTypes, secret, () => listEventTypes());
}
