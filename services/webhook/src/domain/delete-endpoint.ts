import type { Identity } from '@platform/contracts';
import { NotFoundError } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { deliveryModel } from '../models/delivery.ts';
import { endpointModel } from '../models/endpoint.ts';
import { requireWriter } from './access.ts';

/** Deletes an endpoint with its delivery log; queued attempts find nothing and are dropped. */
export async function deleteEndpoint(deps: WebhookDeps, identity: Identity, id: string): Promise<void> {
  requireWriter(identity);
  const { deletedCount } = await endpointModel(deps.db).deleteOne({ _id: id, orgId: identity.orgId });
  if (deletedCount === 0) throw new NotFoundError('No such webhook endpoint');
  await deliveryModel(deps.db).deleteMany({ orgId: identity.orgId, endpointId: id });
}
