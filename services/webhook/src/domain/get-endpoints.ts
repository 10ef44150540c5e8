import type { Identity, PageQuery, WebhookEndpoint } from '@platform/contracts';
import { NotFoundError, paginate, type Page } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { endpointModel, type EndpointDoc } from '../models/endpoint.ts';
import { toEndpoint } from './views.ts';

export async function listEndpoints(
  deps: WebhookDeps,
  identity: Identity,
  query: PageQuery,
): Promise<Page<WebhookEndpoint>> {
  return paginate(endpointModel(deps.db), { orgId: identity.orgId }, query, toEndpoint);
}

/** The organization's endpoint, or 404 (another organization's endpoint does not exist for it). */
export async function findEndpoint(deps: WebhookDeps, orgId: string, id: string): Promise<EndpointDoc> {
  const doc = await endpointModel(deps.db).findOne({ _id: id, orgId }).lean<EndpointDoc>();
  if (!doc) throw new NotFoundError('No such webhook endpoint');
  return doc;
}

export async function getEndpoint(deps: WebhookDeps, identity: Identity, id: string) {
  return toEndpoint(await findEndpoint(deps, identity.orgId, id));
}
