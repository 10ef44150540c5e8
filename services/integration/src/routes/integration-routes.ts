import type { Express } from 'express';
import { integrationRoutes } from '@platform/contracts';
import { mountRoute } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { getIntegration, listIntegrations } from '../domain/catalog.ts';

/** The catalog: the same for every organization, readable by every role. */
export function mountIntegrationRoutes(app: Express, deps: IntegrationDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, integrationRoutes.listIntegrations, secret, ({ query }) => listIntegrations(query));
  mountRoute(app, integrationRoutes.getIntegration, secret, ({ params }) => getIntegration(params.id));
}
