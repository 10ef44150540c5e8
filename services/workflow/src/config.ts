import { z } from 'zod';
import { keyRingFromEnv } from '@platform/kit';

/** Variables of the workflow service beyond the base ones (PORT, NATS_URL, MONGO_URL, …). */
export const workflowEnv = {
  /** Its own database. */
  MONGO_DB: z.string().default('workflow'),
  /** Key ring (`kid:base64(32 bytes),…`) that encrypts webhook secrets at rest. */
  KEY_ENCRYPTION_KEYS: keyRingFromEnv,
  /** Public base URL of the API, for webhook URLs (empty: URLs are given as paths). */
  PUBLIC_BASE_URL: z.string().default(''),
  /** How often each replica looks for due schedule ticks. */
  SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(100).default(1_000),
  /** How often each replica reloads the event triggers (changes made elsewhere take this long). */
  EVENT_TRIGGER_REFRESH_MS: z.coerce.number().int().min(100).default(5_000),
  /**
   * How long the execute paths may use a workflow read earlier (0: always read). Changes made at
   * another replica reach this one by event within milliseconds; this bounds a missed event.
   */
  WORKFLOW_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  /** How long to wait for the execution service to queue an execution. */
  START_TIMEOUT_MS: z.coerce.number().int().min(500).default(10_000),
};
