import { optInEventTypes, subscribableEventTypes, type PlatformEvent } from '@platform/contracts';
import type { WebhookDeps } from '../deps.ts';
import { deliveryModel } from '../models/delivery.ts';
import { endpointModel } from '../models/endpoint.ts';
import { eventModel } from '../models/event.ts';
import { newDeliveryDoc, publishOrSchedule, type Due } from './enqueue.ts';

function isDuplicate(err: unknown): boolean {
  if ((err as { code?: number }).code === 11000) return true;
  const writeErrors = (err as { writeErrors?: Array<{ code?: number }> }).writeErrors ?? [];
  return writeErrors.length > 0 && writeErrors.every((e) => e.code === 11000);
}

/**
 * One event from EVENTS, if its type is in the catalog: kept for GET /events, and a delivery created
 * for every enabled endpoint of its organization subscribed to its type (`*` matches all but the
 * opt-in types). Safe to run again
 * for the same event (redelivery): the event and delivery ids are derived, so nothing is doubled;
 * first attempts that may not have been published are published again (de-duplicated by their
 * Nats-Msg-Id).
 */
export async function fanOut(deps: WebhookDeps, event: PlatformEvent, requestId?: string): Promise<number> {
  // Only the catalog's types reach customers; other events on EVENTS are internal.
  if (!subscribableEventTypes.has(event.type)) return 0;
  const record = {
    _id: event.id,
    orgId: event.orgId,
    type: event.type,
    createdAt: new Date(event.createdAt),
    payload: JSON.stringify(event),
  };
  await deps.writes
    .run(() => eventModel(deps.db).create(record))
    .catch((err) => {
      if (!isDuplicate(err)) throw err;
    });
  const events = optInEventTypes.has(event.type) ? event.type : { $in: [event.type, '*'] };
  const endpoints = await endpointModel(deps.db)
    .find({ orgId: event.orgId, enabled: true, events }, { _id: 1 })
    .lean();
  if (endpoints.length === 0) return 0;
  const now = new Date();
  const docs = endpoints.map((e) => newDeliveryDoc(event, e._id, now));
  const deliveries = deliveryModel(deps.db);
  try {
    await deps.writes.run(() => deliveries.insertMany(docs, { ordered: false }));
  } catch (err) {
    if (!isDuplicate(err)) throw err;
    const waiting = await deliveries
      .find(
        { _id: { $in: docs.map((d) => d._id) }, orgId: event.orgId, status: 'pending', nextAttempt: 1 },
        { _id: 1, orgId: 1, endpointId: 1, nextAttempt: 1 },
      )
      .lean<Due[]>();
    await publishOrSchedule(deps, waiting, requestId);
    return waiting.length;
  }
  await publishOrSchedule(deps, docs, requestId);
  return docs.length;
}
