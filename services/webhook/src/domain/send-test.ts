import { randomUUID } from 'node:crypto';
import type { Identity, PlatformEvent, WebhookDelivery } from '@platform/contracts';
import { withIdempotency } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { deliveryModel } from '../models/delivery.ts';
import { requireWriter } from './access.ts';
import { newDeliveryDoc, publishOrSchedule } from './enqueue.ts';
import { findEndpoint } from './get-endpoints.ts';
import { toDelivery } from './views.ts';

/**
 * Sends a `webhook.ping` event to one endpoint (even a disabled one, to check it before enabling it
 * again). It is a delivery like any other: signed, retried, in the delivery log.
 */
export async function sendTest(
  deps: WebhookDeps,
  identity: Identity,
  endpointId: string,
  idempotencyKey: string | undefined,
  requestId: string,
): Promise<WebhookDelivery> {
  requireWriter(identity);
  const { result } = await withIdempotency(
    deps.db,
    { orgId: identity.orgId, scope: 'webhook.test', key: idempotencyKey, request: { endpointId } },
    async () => {
      const endpoint = await findEndpoint(deps, identity.orgId, endpointId);
      const event: PlatformEvent = {
        id: randomUUID(),
        type: 'webhook.ping',
        createdAt: new Date().toISOString(),
        orgId: identity.orgId,
        data: { endpointId: endpoint._id, message: 'This is a test event from POST /webhooks/{id}/test.' },
      };
      const doc = newDeliveryDoc(event, endpoint._id);
      await deliveryModel(deps.db).create(doc);
      await publishOrSchedule(deps, [doc], requestId);
      return toDelivery(doc);
    },
  );
  return result;
}
