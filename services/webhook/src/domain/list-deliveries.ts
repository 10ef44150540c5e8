import type { z } from 'zod';
import type { DeliveryListQuery, Identity, WebhookDelivery } from '@platform/contracts';
import { paginate, type Page } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { deliveryModel } from '../models/delivery.ts';
import { findEndpoint } from './get-endpoints.ts';
import { toDelivery } from './views.ts';

/** The delivery log of one endpoint, newest first, each with all its attempts. */
export async function listDeliveries(
  deps: WebhookDeps,
  identity: Identity,
  endpointId: string,
  query: z.infer<typeof DeliveryListQuery>,
): Promise<Page<WebhookDelivery>> {
  await findEndpoint(deps, identity.orgId, endpointId);
  const filter = {
    orgId: identity.orgId,
    endpointId,
    ...(query.status ? { status: query.status } : {}),
  };
  return paginate(deliveryModel(deps.db), filter, query, toDelivery);
}
