import type { ZodType } from 'zod';
import { z } from './zod.ts';
import { defineRoute } from './http.ts';
import { Id, IdParams, PageQuery, pageOf } from './common.ts';
import { defineDomainEvent } from './events.ts';
import type { EventDef } from './subjects.ts';
import { agentEvents } from './agent.ts';
import { executionEvents } from './execution.ts';
import { connectionEvents } from './integration.ts';
import { sessionEvents } from './session.ts';
import { workflowEvents } from './workflow.ts';

/**
 * Webhooks: endpoints that organizations register, the event catalog they subscribe to, the
 * delivery log and the recent events. Deliveries follow Standard Webhooks 1.0 (see docs/webhooks.md).
 *
 * The catalog takes each event's definition (and so its payload schema) from the contracts of the
 * service that publishes it; a new customer-facing event type is one `entry(...)` line below.
 */

const Timestamp = z.string().datetime();

// --- The webhook service's own events ------------------------------------------------------------------

export const WebhookDisabledData = z.object({
  endpointId: Id,
  url: z.string(),
  reason: z.enum(['gone', 'failing']).openapi({
    description:
      '`gone`: the endpoint answered 410; `failing`: every delivery failed for the configured period',
  }),
  failingSince: Timestamp.nullable(),
});

export const WebhookPingData = z.object({ endpointId: Id, message: z.string() });

/** Published through the webhook service's outbox to EVENTS (`ping` is only ever sent directly). */
export const webhookEvents = {
  disabled: defineDomainEvent('webhook.disabled', WebhookDisabledData),
  ping: defineDomainEvent('webhook.ping', WebhookPingData),
};

// --- The event catalog ---------------------------------------------------------------------------------

export interface EventCatalogEntry {
  type: string;
  description: string;
  /** Opt-in types are delivered only to endpoints that name them, never through `*`. */
  optIn: boolean;
  /** The whole payload: the envelope with this type's data. */
  payload: ZodType;
}

const entry = (def: EventDef, description: string, optIn = false): EventCatalogEntry => ({
  type: def.subject.slice('evt.'.length),
  description,
  optIn,
  payload: def.payload,
});

/** Every event type customers can receive; other events on EVENTS stay internal. */
export const eventCatalog: readonly EventCatalogEntry[] = [
  entry(sessionEvents.started, 'A conversation with a deployed agent started.'),
  entry(sessionEvents.completed, 'A session ended successfully.'),
  entry(sessionEvents.failed, 'A session ended with an error.'),
  entry(sessionEvents.cancelled, 'A session was terminated by the user or the agent.'),
  entry(
    sessionEvents.message,
    'A message was added to a session (high volume: opt-in, not matched by `*`).',
    true,
  ),
  entry(executionEvents.queued, 'An execution of a workflow was queued.'),
  entry(executionEvents.running, 'An execution started running.'),
  entry(executionEvents.succeeded, 'An execution finished successfully.'),
  entry(executionEvents.failed, 'An execution failed for good (after its retries).'),
  entry(executionEvents.cancelled, 'An execution was cancelled.'),
  entry(workflowEvents.created, 'A workflow was created.'),
  entry(workflowEvents.updated, 'A workflow was changed.'),
  entry(workflowEvents.deleted, 'A workflow was deleted.'),
  entry(agentEvents.created, 'An AI agent was created.'),
  entry(agentEvents.updated, 'An AI agent got a new version or was archived.'),
  entry(connectionEvents.created, 'A connection to an integration was created.'),
  entry(connectionEvents.failing, 'A connection to an integration started failing.'),
  entry(connectionEvents.revoked, 'A connection was revoked.'),
  entry(connectionEvents.deleted, 'A connection was deleted.'),
  entry(webhookEvents.disabled, 'A webhook endpoint was disabled (it answered 410, or failed for days).'),
  entry(webhookEvents.ping, 'Sent by POST /webhooks/{id}/test to that endpoint only; not subscribable.'),
];

export const catalogEventTypes: ReadonlySet<string> = new Set(eventCatalog.map((e) => e.type));
/** Types an endpoint may subscribe to (`webhook.ping` is only sent on request). */
export const subscribableEventTypes: ReadonlySet<string> = new Set(
  eventCatalog.filter((e) => e.type !== 'webhook.ping').map((e) => e.type),
);
export const optInEventTypes: ReadonlySet<string> = new Set(
  eventCatalog.filter((e) => e.optIn).map((e) => e.type),
);

/** Any event as stored and delivered: the common envelope with the type's data. */
export const PlatformEvent = z
  .object({
    id: z.string().min(1),
    type: z.string().min(1),
    createdAt: Timestamp,
    orgId: z.string().min(1),
    data: z.unknown(),
  })
  .openapi('Event');
export type PlatformEvent = z.infer<typeof PlatformEvent>;

// --- Endpoints -----------------------------------------------------------------------------------------

const EventTypeList = z
  .array(
    z
      .string()
      .refine(
        (t) => t === '*' || subscribableEventTypes.has(t),
        'is not a known event type (see /event-types)',
      ),
  )
  .min(1)
  .max(100)
  .openapi({ description: 'Event types to receive, or `*` for every type except the opt-in ones' });

const WebhookUrl = z.string().trim().min(1).max(2048);

export const CreateWebhookBody = z
  .object({
    url: WebhookUrl,
    events: EventTypeList,
    description: z.string().trim().max(500).optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

export const UpdateWebhookBody = z
  .object({
    url: WebhookUrl.optional(),
    events: EventTypeList.optional(),
    description: z.string().trim().max(500).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

export const WebhookEndpoint = z
  .object({
    id: Id,
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabledReason: z
      .enum(['manual', 'gone', 'failing'])
      .nullable()
      .openapi({ description: 'Why the endpoint is disabled: by a user, a 410 answer, or failing for days' }),
    failingSince: Timestamp.nullable().openapi({ description: 'First failure since the last success' }),
    secretRotatedAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('WebhookEndpoint');
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().openapi({ description: 'Signing secret (`whsec_…`); shown only in this answer' }),
}).openapi('WebhookEndpointWithSecret');
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;

export const RotateSecretBody = z
  .object({
    gracePeriodSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .optional()
      .openapi({ description: 'How long the previous secret keeps signing too (default 24 h)' }),
  })
  .strict();

export const RotateSecretResponse = z
  .object({
    id: Id,
    secret: z.string().openapi({ description: 'The new signing secret; shown only in this answer' }),
    previousSecretExpiresAt: Timestamp.nullable(),
  })
  .openapi('WebhookSecretRotation');

// --- Deliveries ----------------------------------------------------------------------------------------

export const DeliveryStatus = z.enum(['pending', 'succeeded', 'failed']);

export const DeliveryAttempt = z.object({
  attempt: z.number().int(),
  at: Timestamp,
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  error: z.string().nullable(),
  responseBody: z.string().nullable().openapi({ description: 'Start of the response body (1 KiB at most)' }),
});

export const WebhookDelivery = z
  .object({
    id: Id,
    endpointId: Id,
    eventId: z.string(),
    eventType: z.string(),
    status: DeliveryStatus,
    attempts: z.array(DeliveryAttempt),
    nextAttemptAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('WebhookDelivery');
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const DeliveryListQuery = PageQuery.extend({ status: DeliveryStatus.optional() });
export const DeliveryParams = z.object({ id: Id, deliveryId: Id });

export const EventListQuery = PageQuery.extend({ type: z.string().min(1).max(100).optional() });

export const EventTypeInfo = z
  .object({
    type: z.string(),
    description: z.string(),
    optIn: z.boolean(),
    schema: z.record(z.string(), z.unknown()).openapi({ description: 'JSON Schema of the whole payload' }),
  })
  .openapi('EventType');

/** A delivery attempt to run, on the WEBHOOK_DELIVERIES work queue (one message per attempt). */
export const WebhookDeliveryJob = z.object({
  deliveryId: Id,
  orgId: Id,
  endpointId: Id,
  attempt: z.number().int().min(1),
});
export type WebhookDeliveryJob = z.infer<typeof WebhookDeliveryJob>;

export const webhookStreams = {
  deliveries: { name: 'WEBHOOK_DELIVERIES', subject: 'work.webhook.deliver' },
} as const;

// --- Routes --------------------------------------------------------------------------------------------

const tag = 'Webhooks';
const base = { service: 'webhook', tag, access: 'authenticated' } as const;

export const webhookRoutes = {
  create: defineRoute({
    ...base,
    method: 'post',
    path: '/api/v1/webhooks',
    summary: 'Register a webhook endpoint (the signing secret is shown once)',
    body: CreateWebhookBody,
    success: { status: 201, schema: WebhookEndpointWithSecret },
    errors: [400, 403, 409],
  }),
  list: defineRoute({
    ...base,
    method: 'get',
    path: '/api/v1/webhooks',
    summary: 'List webhook endpoints',
    query: PageQuery,
    success: { status: 200, schema: pageOf(WebhookEndpoint) },
  }),
  get: defineRoute({
    ...base,
    method: 'get',
    path: '/api/v1/webhooks/{id}',
    summary: 'Get a webhook endpoint',
    params: IdParams,
    success: { status: 200, schema: WebhookEndpoint },
    errors: [404],
  }),
  update: defineRoute({
    ...base,
    method: 'patch',
    path: '/api/v1/webhooks/{id}',
    summary: 'Change a webhook endpoint (url, events, description, enabled)',
    params: IdParams,
    body: UpdateWebhookBody,
    success: { status: 200, schema: WebhookEndpoint },
    errors: [403, 404],
  }),
  remove: defineRoute({
    ...base,
    method: 'delete',
    path: '/api/v1/webhooks/{id}',
    summary: 'Delete a webhook endpoint and its pending deliveries',
    params: IdParams,
    success: { status: 204 },
    errors: [403, 404],
  }),
  rotateSecret: defineRoute({
    ...base,
    method: 'post',
    path: '/api/v1/webhooks/{id}/rotate-secret',
    summary: 'Make a new signing secret; the previous one also signs during a grace period',
    params: IdParams,
    body: RotateSecretBody,
    success: { status: 200, schema: RotateSecretResponse },
    errors: [403, 404],
  }),
  test: defineRoute({
    ...base,
    method: 'post',
    path: '/api/v1/webhooks/{id}/test',
    summary: 'Send a webhook.ping event to this endpoint',
    params: IdParams,
    success: { status: 202, schema: WebhookDelivery },
    errors: [403, 404, 409],
  }),
  listDeliveries: defineRoute({
    ...base,
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries',
    summary: "The endpoint's delivery log, newest first, with every attempt",
    params: IdParams,
    query: DeliveryListQuery,
    success: { status: 200, schema: pageOf(WebhookDelivery) },
    errors: [404],
  }),
  replayDelivery: defineRoute({
    ...base,
    method: 'post',
    path: '/api/v1/webhooks/{id}/deliveries/{deliveryId}/replay',
    summary: 'Send a delivery again (same webhook-id), with a fresh retry schedule',
    params: DeliveryParams,
    success: { status: 202, schema: WebhookDelivery },
    errors: [403, 404, 409],
  }),
  listEvents: defineRoute({
    ...base,
    method: 'get',
    path: '/api/v1/events',
    summary: "The organization's recent events (kept for the retention window), newest first",
    query: EventListQuery,
    success: { status: 200, schema: pageOf(PlatformEvent) },
  }),
  getEvent: defineRoute({
    ...base,
    method: 'get',
    path: '/api/v1/events/{id}',
    summary: 'One recent event',
    params: IdParams,
    success: { status: 200, schema: PlatformEvent },
    errors: [404],
  }),
  listEventTypes: defineRoute({
    ...base,
    method: 'get',
    path: '/api/v1/event-types',
    summary: 'The event catalog with a JSON Schema of each payload',
    success: { status: 200, schema: z.object({ items: z.array(EventTypeInfo) }) },
  }),
};

/** JSON Schema of an event type's whole payload; extra fields stay allowed (events grow over time). */
export function eventPayloadJsonSchema(e: EventCatalogEntry): Record<string, unknown> {
  const schema = z.toJSONSchema(e.payload, { io: 'output', unrepresentable: 'any' });
  return loosen(schema) as Record<string, unknown>;
}

function loosen(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(loosen);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'additionalProperties' && value === false) continue;
    // zod writes a long regex beside `format: date-time`; the format says it.
    if (key === 'pattern' && (node as { format?: string }).format === 'date-time') continue;
    out[key] = loosen(value);
  }
  return out;
}
