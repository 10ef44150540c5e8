import type { Express } from 'express';
import { webhookRoutes } from '@platform/contracts';
import { idempotencyKeyOf, mountRoute } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { listDeliveries } from '../domain/list-deliveries.ts';
import { replayDelivery } from '../domain/replay-delivery.ts';

export function mountDeliveryRoutes(app: Express, deps: WebhookDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, webhookRoutes.listDeliveries, secret, ({ identity, params, query }) =>
    listDeliveries(deps, identity, params.id, query),
  );
  mountRoute(app, webhookRoutes.replayDelivery, secret, ({ identity, params, req, requestId }) =>
    replayDelivery(deps, identity, params.id, params.deliveryId, idempotencyKeyOf(req), requestId),
  );
}
