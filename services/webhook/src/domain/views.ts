import type { PlatformEvent, WebhookDelivery, WebhookEndpoint } from '@platform/contracts';
import type { DeliveryDoc } from '../models/delivery.ts';
import type { EndpointDoc } from '../models/endpoint.ts';
import type { EventDoc } from '../models/event.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The API view of an endpoint: never any secret. */
export function toEndpoint(doc: EndpointDoc): WebhookEndpoint {
  return {
    id: doc._id,
    url: doc.url,
    events: doc.events,
    description: doc.description ?? null,
    enabled: doc.enabled,
    disabledReason: doc.disabledReason ?? null,
    failingSince: iso(doc.failingSince),
    secretRotatedAt: iso(doc.secretRotatedAt),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}

export function toDelivery(doc: DeliveryDoc): WebhookDelivery {
  return {
    id: doc._id,
    endpointId: doc.endpointId,
    eventId: doc.eventId,
    eventType: doc.eventType,
    status: doc.status,
    attempts: (doc.attempts ?? []).map((a) => ({
      attempt: a.attempt,
      at: a.at.toISOString(),
      statusCode: a.statusCode ?? null,
      durationMs: Math.round(a.durationMs),
      error: a.error ?? null,
      responseBody: a.responseBody ?? null,
    })),
    nextAttemptAt: doc.status === 'pending' ? iso(doc.nextAttemptAt) : null,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}

export function toEvent(doc: EventDoc): PlatformEvent {
  return JSON.parse(doc.payload) as PlatformEvent;
}
