import { createHash } from 'node:crypto';
import { headers as natsHeadersOf } from '@nats-io/transport-node';
import {
  natsHeaders,
  webhookStreams,
  type PlatformEvent,
  type WebhookDeliveryJob,
} from '@platform/contracts';
import type { WebhookDeps } from '../deps.ts';
import type { DeliveryDoc } from '../models/delivery.ts';
import { retryModel } from '../models/retry.ts';

/** One delivery per (event, endpoint): the id is derived from both, so a repeated fan-out finds it. */
export function deliveryIdOf(eventId: string, endpointId: string): string {
  return `dlv_${createHash('sha256').update(`${eventId}\n${endpointId}`).digest('hex').slice(0, 32)}`;
}

export function newDeliveryDoc(event: PlatformEvent, endpointId: string, now = new Date()): DeliveryDoc {
  return {
    _id: deliveryIdOf(event.id, endpointId),
    orgId: event.orgId,
    endpointId,
    eventId: event.id,
    eventType: event.type,
    payload: JSON.stringify(event),
    status: 'pending',
    attempts: [],
    nextAttempt: 1,
    roundStart: 1,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  };
}

/** An attempt to run: the delivery, its organization and endpoint, and the attempt number. */
export type Due = Pick<DeliveryDoc, '_id' | 'orgId' | 'endpointId' | 'nextAttempt'>;

/**
 * Publishes the work messages of attempts (Nats-Msg-Id `deliveryId:attempt`, so a repeated publish
 * is stored once); returns those that could not be published.
 */
export async function publishJobs(deps: WebhookDeps, due: Due[], requestId?: string): Promise<Due[]> {
  const failed: Due[] = [];
  await Promise.all(
    due.map(async (d) => {
      const job: WebhookDeliveryJob = {
        deliveryId: d._id,
        orgId: d.orgId,
        endpointId: d.endpointId,
        attempt: d.nextAttempt,
      };
      const h = natsHeadersOf();
      if (requestId) h.set(natsHeaders.requestId, requestId);
      try {
        await deps.js.publish(webhookStreams.deliveries.subject, JSON.stringify(job), {
          msgID: `${d._id}:${d.nextAttempt}`,
          headers: h,
          timeout: 5_000,
        });
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message, deliveryId: d._id }, 'work message not published');
        failed.push(d);
      }
    }),
  );
  return failed;
}

/** Records that an attempt is to be queued at `dueAt` (the scheduler publishes it then). */
export async function scheduleAttempts(deps: WebhookDeps, due: Due[], dueAt: Date): Promise<void> {
  if (due.length === 0) return;
  const docs = due.map((d) => ({
    _id: `${d._id}:${d.nextAttempt}`,
    deliveryId: d._id,
    orgId: d.orgId,
    endpointId: d.endpointId,
    attempt: d.nextAttempt,
    dueAt,
  }));
  await retryModel(deps.db)
    .insertMany(docs, { ordered: false })
    .catch((err: { code?: number; writeErrors?: Array<{ code?: number }> }) => {
      const codes = err.writeErrors?.map((e) => e.code) ?? [err.code];
      if (!codes.every((c) => c === 11000)) throw err; // already scheduled
    });
}

/**
 * Publishes attempts now; those that could not be published are left to the scheduler, so NATS
 * being briefly away delays a delivery but never loses it.
 */
export async function publishOrSchedule(deps: WebhookDeps, due: Due[], requestId?: string): Promise<void> {
  const failed = await publishJobs(deps, due, requestId);
  await scheduleAttempts(deps, failed, new Date());
}
