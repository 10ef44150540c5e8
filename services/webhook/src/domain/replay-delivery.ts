import type { Identity, WebhookDelivery } from '@platform/contracts';
import { ConflictError, NotFoundError, withIdempotency } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { deliveryModel, type DeliveryDoc } from '../models/delivery.ts';
import { requireWriter } from './access.ts';
import { publishOrSchedule } from './enqueue.ts';
import { findEndpoint } from './get-endpoints.ts';
import { toDelivery } from './views.ts';

/**
 * Sends a finished delivery again: the same body and webhook-id (receivers that de-duplicate by id
 * see the same message), with a fresh retry schedule. A delivery still in progress is a 409.
 */
export async function replayDelivery(
  deps: WebhookDeps,
  identity: Identity,
  endpointId: string,
  deliveryId: string,
  idempotencyKey: string | undefined,
  requestId: string,
): Promise<WebhookDelivery> {
  requireWriter(identity);
  const { result } = await withIdempotency(
    deps.db,
    {
      orgId: identity.orgId,
      scope: 'webhook.replay',
      key: idempotencyKey,
      request: { endpointId, deliveryId },
    },
    async () => {
      const endpoint = await findEndpoint(deps, identity.orgId, endpointId);
      const deliveries = deliveryModel(deps.db);
      const current = await deliveries
        .findOne({ _id: deliveryId, orgId: identity.orgId, endpointId })
        .lean<DeliveryDoc>();
      if (!current) throw new NotFoundError('No such delivery');
      if (current.status === 'pending') throw new ConflictError('This delivery is still in progress');
      if (!endpoint.enabled && current.eventType !== 'webhook.ping') {
        throw new ConflictError('The endpoint is disabled; enable it before replaying');
      }
      const now = new Date();
      const doc = await deliveries
        .findOneAndUpdate(
          {
            _id: deliveryId,
            orgId: identity.orgId,
            status: current.status,
            nextAttempt: current.nextAttempt,
          },
          {
            $set: {
              status: 'pending',
              roundStart: current.nextAttempt,
              nextAttemptAt: now,
              updatedAt: now,
            },
          },
          { new: true },
        )
        .lean<DeliveryDoc>();
      if (!doc) throw new ConflictError('The delivery changed at the same time; try again');
      await publishOrSchedule(deps, [doc], requestId);
      return toDelivery(doc);
    },
  );
  return result;
}
