import type { Express } from 'express';
import { integrationRoutes } from '@platform/contracts';
import { idempotencyKeyOf, mountRoute } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { createConnection } from '../domain/create-connection.ts';
import { deleteConnection } from '../domain/delete-connection.ts';
import { getConnection, listConnections } from '../domain/list-connections.ts';
import { testConnection } from '../domain/test-connection.ts';
import { updateConnection } from '../domain/update-connection.ts';

export function mountConnectionRoutes(app: Express, deps: IntegrationDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  const r = integrationRoutes;
  mountRoute(app, r.createConnection, secret, ({ identity, body, req, requestId, log }) =>
    createConnection(deps, identity, body, { idempotencyKey: idempotencyKeyOf(req), requestId, log }),
  );
  mountRoute(app, r.listConnections, secret, ({ identity, query }) => listConnections(deps, identity, query));
  mountRoute(app, r.getConnection, secret, ({ identity, params }) =>
    getConnection(deps, identity.orgId, params.id),
  );
  mountRoute(app, r.updateConnection, secret, ({ identity, params, body, requestId, log }) =>
    updateConnection(deps, identity, params.id, body, { requestId, log }),
  );
  mountRoute(app, r.deleteConnection, secret, async ({ identity, params, requestId }) => {
    await deleteConnection(deps, identity, params.id, requestId);
  });
  mountRoute(app, r.testConnection, secret, ({ identity, params, requestId, log }) =>
    testConnection(deps, identity, params.id, { requestId, log }),
  );
}
