import { purgeExpiredIdempotencyKeys } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { deliveryModel } from '../models/delivery.ts';
import { eventModel } from '../models/event.ts';

/**
 * Removes events and finished deliveries older than WEBHOOK_RETENTION, and expired idempotency
 * records (FerretDB has no TTL indexes). A system job over every organization.
 */
export async function purgeOld(deps: WebhookDeps): Promise<{ events: number; deliveries: number }> {
  const before = new Date(Date.now() - deps.config.WEBHOOK_RETENTION);
  const events = await eventModel(deps.db).deleteMany({ createdAt: { $lt: before } });
  const deliveries = await deliveryModel(deps.db).deleteMany({
    updatedAt: { $lt: before },
    status: { $ne: 'pending' },
  });
  await purgeExpiredIdempotencyKeys(deps.db);
  return { events: events.deletedCount, deliveries: deliveries.deletedCount };
}
