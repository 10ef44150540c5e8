import type { Express } from 'express';
import { authRoutes } from '@platform/contracts';
import { mountRoute } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { createApiKey } from '../domain/create-api-key.ts';
import { deleteApiKey } from '../domain/delete-api-key.ts';
import { listApiKeys } from '../domain/list-api-keys.ts';
import { rotateApiKey } from '../domain/rotate-api-key.ts';

export function mountApiKeyRoutes(app: Express, deps: AuthDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, authRoutes.createApiKey, secret, ({ identity, body }) =>
    createApiKey(deps, identity, body),
  );
  mountRoute(app, authRoutes.listApiKeys, secret, ({ identity, query }) =>
    listApiKeys(deps, identity, query),
  );
  mountRoute(app, authRoutes.rotateApiKey, secret, ({ identity, params, body }) =>
    rotateApiKey(deps, identity, params.id, body.gracePeriodSeconds),
  );
  mountRoute(app, authRoutes.deleteApiKey, secret, ({ identity, params }) =>
    deleteApiKey(deps, identity, params.id),
  );
}
