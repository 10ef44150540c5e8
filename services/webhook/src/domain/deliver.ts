import { outboundFetch, type Logger } from '@platform/kit';
import type { WebhookDeliveryJob } from '@platform/contracts';
import type { WebhookDeps } from '../deps.ts';
import { deliveryModel, type AttemptDoc, type DeliveryDoc } from '../models/delivery.ts';
import { endpointModel, type EndpointDoc } from '../models/endpoint.ts';
import { disableEndpoint, noteEndpointHealth } from './disable-endpoint.ts';
import { scheduleAttempts } from './enqueue.ts';
import { decide, type Outcome } from './retry-policy.ts';
import { signatureHeader, signingSecrets } from './signing.ts';

const keptResponseBytes = 1_024;
const userAgent = 'AgentPlatform-Webhooks/1.0';

/**
 * Runs one attempt of a delivery (one work message): sends it signed, stores the attempt and what
 * follows (success, next retry time, end), and only then lets the message be acknowledged. A message
 * whose attempt already ran (a duplicate) is acknowledged without sending.
 */
export async function runAttempt(
  deps: WebhookDeps,
  job: WebhookDeliveryJob,
  log: Logger,
  requestId?: string,
): Promise<void> {
  const now = new Date();
  // A read, not a claim: only the holder of an attempt's work message runs it (heartbeats keep the
  // message from going to another replica), so the read tells a duplicate from the current attempt.
  // This keeps updates of the delivery to one per attempt (FerretDB rewrites documents slowly).
  const delivery = await deliveryModel(deps.db).findOne({ _id: job.deliveryId }).lean<DeliveryDoc>();
  if (!delivery || delivery.orgId !== job.orgId) return; // deleted with its endpoint
  if (delivery.status !== 'pending' || delivery.nextAttempt !== job.attempt) {
    return ranAlready(deps, job, delivery, now);
  }
  const found = await endpointModel(deps.db).findOne({ _id: delivery.endpointId }).lean<EndpointDoc>();
  const endpoint = found?.orgId === delivery.orgId ? found : null;
  if (!endpoint || (!endpoint.enabled && delivery.eventType !== 'webhook.ping')) {
    const error = endpoint ? 'not sent: the endpoint is disabled' : 'not sent: the endpoint was deleted';
    const attempt = attemptOf(job.attempt, now, null, 0, error, null);
    await deps.writes.run(() => store(deps, delivery, attempt, { kind: 'exhausted' }));
    return;
  }

  const sent = await send(deps, delivery, endpoint);
  const attempt = attemptOf(job.attempt, sent.at, sent.statusCode, sent.durationMs, sent.error, sent.body);
  const outcome = decide(
    {
      schedule: deps.config.WEBHOOK_RETRY_SCHEDULE,
      jitter: deps.config.WEBHOOK_RETRY_JITTER,
      maxRetryAfterMs: deps.config.WEBHOOK_MAX_RETRY_AFTER,
    },
    sent,
    job.attempt - delivery.roundStart,
  );
  await deps.writes.run(async () => {
    await store(deps, delivery, attempt, outcome);
    if (outcome.kind === 'retry') {
      const dueAt = new Date(sent.at.getTime() + sent.durationMs + outcome.delayMs);
      await scheduleAttempts(deps, [{ ...delivery, nextAttempt: job.attempt + 1 }], dueAt);
    }
  });
  log.debug({ deliveryId: delivery._id, attempt: job.attempt, outcome: outcome.kind }, 'webhook attempt');
  if (delivery.eventType === 'webhook.ping') return; // pings say nothing of the endpoint's health
  if (outcome.kind === 'gone') await disableEndpoint(deps, endpoint, 'gone', requestId);
  else await noteEndpointHealth(deps, endpoint, outcome.kind === 'succeeded', requestId);
}

/**
 * The attempt ran already (a duplicate message). If the delivery goes on, its next attempt is
 * scheduled again, in case the process that ran this one died between storing the result and
 * scheduling the retry (a no-op otherwise: the retry's id is derived from the attempt number).
 */
async function ranAlready(
  deps: WebhookDeps,
  job: WebhookDeliveryJob,
  current: DeliveryDoc,
  now: Date,
): Promise<void> {
  if (current.status === 'pending' && current.nextAttempt > job.attempt) {
    await scheduleAttempts(deps, [current], current.nextAttemptAt ?? now);
  }
}

interface Sent {
  at: Date;
  statusCode: number | null;
  retryAfter?: string;
  durationMs: number;
  error: string | null;
  body: string | null;
}

/** The request itself: Standard Webhooks headers, the stored body, a fresh timestamp per attempt. */
async function send(deps: WebhookDeps, delivery: DeliveryDoc, endpoint: EndpointDoc): Promise<Sent> {
  const at = new Date();
  const timestamp = Math.floor(at.getTime() / 1000);
  const started = performance.now();
  try {
    const secrets = signingSecrets(deps.keyRing, endpoint._id, endpoint.secrets, at);
    const res = await outboundFetch(
      endpoint.url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': userAgent,
          'webhook-id': delivery.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, delivery.eventId, timestamp, delivery.payload),
        },
        body: delivery.payload,
      },
      {
        allowPrivateNetwork: deps.config.ALLOW_PRIVATE_NETWORK,
        timeoutMs: deps.config.WEBHOOK_TIMEOUT,
        maxResponseBytes: deps.config.WEBHOOK_MAX_RESPONSE_BYTES,
      },
    );
    const ok = res.status >= 200 && res.status < 300;
    return {
      at,
      statusCode: res.status,
      retryAfter: res.headers['retry-after'],
      durationMs: res.durationMs,
      error: ok ? null : `HTTP ${res.status}`,
      body: res.body ? res.body.slice(0, keptResponseBytes) : null,
    };
  } catch (err) {
    return {
      at,
      statusCode: null,
      durationMs: performance.now() - started,
      error: (err as Error).message.slice(0, 500),
      body: null,
    };
  }
}

function attemptOf(
  attempt: number,
  at: Date,
  statusCode: number | null,
  durationMs: number,
  error: string | null,
  responseBody: string | null,
): AttemptDoc {
  return { attempt, at, statusCode, durationMs: Math.round(durationMs), error, responseBody };
}

/** Stores the attempt and what follows, guarded by the attempt number (a late duplicate changes nothing). */
async function store(deps: WebhookDeps, delivery: DeliveryDoc, attempt: AttemptDoc, outcome: Outcome) {
  const now = new Date();
  const retry = outcome.kind === 'retry';
  await deliveryModel(deps.db).updateOne(
    { _id: delivery._id, orgId: delivery.orgId, nextAttempt: attempt.attempt, status: 'pending' },
    {
      $push: { attempts: attempt },
      $set: {
        status: outcome.kind === 'succeeded' ? 'succeeded' : retry ? 'pending' : 'failed',
        nextAttempt: attempt.attempt + 1,
        nextAttemptAt: retry ? new Date(now.getTime() + outcome.delayMs) : null,
        updatedAt: now,
      },
    },
  );
}
