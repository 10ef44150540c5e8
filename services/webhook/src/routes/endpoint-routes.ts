import type { Express } from 'express';
import { webhookRoutes } from '@platform/contracts';
import { idempotencyKeyOf, mountRoute } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { createEndpoint } from '../domain/create-endpoint.ts';
import { deleteEndpoint } from '../domain/delete-endpoint.ts';
import { getEndpoint, listEndpoints } from '../domain/get-endpoints.ts';
import { rotateSecret } from '../domain/rotate-secret.ts';
import { sendTest } from '../domain/send-test.ts';
import { updateEndpoint } from '../domain/update-endpoint.ts';

export function mountEndpointRoutes(app: Express, deps: WebhookDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, webhookRoutes.create, secret, ({ identity, body, req }) =>
    createEndpoint(deps, identity, body, idempotencyKeyOf(req)),
  );
  mountRoute(app, webhookRoutes.list, secret, ({ identity, query }) => listEndpoints(deps, identity, query));
  mountRoute(app, webhookRoutes.get, secret, ({ identity, params }) =>
    getEndpoint(deps, identity, params.id),
  );
  mountRoute(app, webhookRoutes.update, secret, ({ identity, params, body }) =>
    updateEndpoint(deps, identity, params.id, body),
  );
  mountRoute(app, webhookRoutes.remove, secret, ({ identity, params }) =>
    deleteEndpoint(deps, identity, params.id),
  );
  mountRoute(app, webhookRoutes.rotateSecret, secret, ({ identity, params, body }) =>
    rotateSecret(deps, identity, params.id, body),
  );
  mountRoute(app, webhookRoutes.test, secret, ({ identity, params, req, requestId }) =>
    sendTest(deps, identity, params.id, idempotencyKeyOf(req), requestId),
  );
}
