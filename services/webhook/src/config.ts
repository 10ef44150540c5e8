import { z } from 'zod';
import { booleanFromEnv, keyRingFromEnv } from '@platform/kit';

const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `5s`, `30m`, `2h`, `1d` or a plain number of milliseconds. */
const durationMs = (value: string): number | undefined => {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * units[match[2] ?? 'ms']!);
};

const duration = z.string().transform((value, ctx) => {
  const ms = durationMs(value);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be a duration such as 500ms, 5s, 30m, 2h, 1d' });
    return z.NEVER;
  }
  return ms;
});

const durationList = z.string().transform((value, ctx) => {
  const list = value.split(',').map(durationMs);
  if (list.length === 0 || list.some((ms) => ms === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of durations (5s,5m,2h)' });
    return z.NEVER;
  }
  return list as number[];
});

/** Variables of the webhook service beyond the base ones (PORT, NATS_URL, MONGO_URL, …). */
export const webhookEnv = {
  /** Its own database. */
  MONGO_DB: z.string().default('webhook'),
  /**
   * Key ring (`kid:base64(32 bytes),…`, the first encrypts) for the endpoints' signing secrets at
   * rest. When unset, KEY_ENCRYPTION_KEYS is used (local runs); production sets its own ring.
   */
  WEBHOOK_SECRETS_KEYS: keyRingFromEnv.optional(),
  KEY_ENCRYPTION_KEYS: keyRingFromEnv.optional(),
  /** Deliveries to private, loopback and link-local addresses (true only for local runs and tests). */
  ALLOW_PRIVATE_NETWORK: booleanFromEnv.default(false),
  /**
   * Delays between attempts after the first (immediate) one: Standard Webhooks' schedule. Tests
   * shorten it; the number of entries + 1 is the number of attempts.
   */
  WEBHOOK_RETRY_SCHEDULE: durationList.prefault('5s,5m,30m,2h,5h,10h,14h,20h,24h'),
  /** Each delay is moved by up to this fraction, either way, so retries of many deliveries spread out. */
  WEBHOOK_RETRY_JITTER: z.coerce.number().min(0).max(0.5).default(0.1),
  /** Longest Retry-After (429/503) honoured; longer values are cut to it. */
  WEBHOOK_MAX_RETRY_AFTER: duration.prefault('24h'),
  /** Timeout of one delivery request. */
  WEBHOOK_TIMEOUT: duration.prefault('15s'),
  /** Bytes of a response body read (and the first 1 KiB kept in the log). */
  WEBHOOK_MAX_RESPONSE_BYTES: z.coerce.number().int().min(0).max(65_536).default(4_096),
  /** An endpoint whose deliveries all failed for this long is disabled. */
  WEBHOOK_DISABLE_AFTER: duration.prefault('5d'),
  /** Default time the previous secret keeps signing after a rotation. */
  WEBHOOK_SECRET_GRACE: duration.prefault('24h'),
  /** Deliveries in flight at once in one replica. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(64),
  /** Deliveries in flight at once to one endpoint in one replica: a slow endpoint holds only these. */
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  /** How often due retries are looked for. */
  WEBHOOK_SCHEDULER_INTERVAL: duration.prefault('1s'),
  /** Concurrent database writes of the delivery path in one replica (fan-out, attempt results). */
  WEBHOOK_DB_WRITERS: z.coerce.number().int().min(1).max(64).default(4),
  /** JetStream ack wait of the consumers (work in progress is kept alive with heartbeats). */
  WEBHOOK_ACK_WAIT: duration.prefault('30s'),
  /** Unacknowledged work-queue messages a replica may hold (waiting for a busy endpoint's slot). */
  WEBHOOK_MAX_ACK_PENDING: z.coerce.number().int().min(100).default(20_000),
  /** Recent events and finished deliveries are kept this long (GET /events, delivery log). */
  WEBHOOK_RETENTION: duration.prefault('30d'),
  /** Endpoints per organization. */
  WEBHOOK_MAX_ENDPOINTS: z.coerce.number().int().min(1).default(50),
};
