import { webhookEvents } from '@platform/contracts';
import type { WebhookDeps } from '../deps.ts';
import { endpointModel, type EndpointDoc } from '../models/endpoint.ts';

/**
 * Disables an endpoint that answered 410 or kept failing, and tells the organization with a
 * `webhook.disabled` event (through the outbox, so it is published at least once; it reaches the
 * organization's other endpoints and GET /events). Only the call that flips `enabled` publishes.
 */
export async function disableEndpoint(
  deps: WebhookDeps,
  endpoint: Pick<EndpointDoc, '_id' | 'orgId' | 'url' | 'failingSince'>,
  reason: 'gone' | 'failing',
  requestId?: string,
): Promise<void> {
  const now = new Date();
  const { modifiedCount } = await endpointModel(deps.db).updateOne(
    { _id: endpoint._id, orgId: endpoint.orgId, enabled: true },
    { $set: { enabled: false, disabledReason: reason, updatedAt: now } },
  );
  if (modifiedCount === 0) return;
  deps.logger.warn({ endpointId: endpoint._id, orgId: endpoint.orgId, reason }, 'webhook endpoint disabled');
  await deps.outbox.publish(
    webhookEvents.disabled,
    endpoint.orgId,
    {
      endpointId: endpoint._id,
      url: endpoint.url,
      reason,
      failingSince: endpoint.failingSince ? endpoint.failingSince.toISOString() : null,
    },
    { requestId },
  );
}

/** Records the health of an endpoint after an attempt; disables it after failing for too long. */
export async function noteEndpointHealth(
  deps: WebhookDeps,
  endpoint: EndpointDoc,
  ok: boolean,
  requestId?: string,
): Promise<void> {
  const endpoints = endpointModel(deps.db);
  if (ok) {
    if (endpoint.failingSince) {
      await endpoints.updateOne(
        { _id: endpoint._id, orgId: endpoint.orgId },
        { $set: { failingSince: null } },
      );
    }
    return;
  }
  if (!endpoint.failingSince) {
    await endpoints.updateOne(
      { _id: endpoint._id, orgId: endpoint.orgId, failingSince: null },
      { $set: { failingSince: new Date() } },
    );
    return;
  }
  if (Date.now() - endpoint.failingSince.getTime() >= deps.config.WEBHOOK_DISABLE_AFTER) {
    await disableEndpoint(deps, endpoint, 'failing', requestId);
  }
}
