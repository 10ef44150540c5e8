import { z } from 'zod';
import { booleanFromEnv, keyRingFromEnv } from '@platform/kit';
import { integrationsEnv } from './integrations/registry.ts';

/** Variables of the integration service beyond the base ones (PORT, NATS_URL, MONGO_URL, …). */
export const integrationEnv = {
  /** Its own database. */
  MONGO_DB: z.string().default('integration'),
  /**
   * Key ring (`kid:base64 of 32 bytes,…`) that encrypts connection credentials (AES-256-GCM); the
   * first key encrypts, all decrypt. Rotation: put a new key first, run the rotation command, then
   * drop the old key (docs/integrations.md).
   */
  CREDENTIALS_KEYS: keyRingFromEnv,
  /** Allow calls to private, loopback and link-local addresses (true only for local runs). */
  ALLOW_PRIVATE_NETWORK: booleanFromEnv.default(false),
  /** Default deadline of one action run over NATS; a caller may ask for less or more (≤ 300 s). */
  ACTION_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  /** Deadline of a connection test call. */
  TEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /**
   * Largest third-party answer read (bytes); longer ones are cut (`truncated`). Kept under the NATS
   * max_payload (1 MB by default), which bounds every RPC reply.
   */
  MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1_048_576)
    .default(512 * 1024),
  /** User-Agent of outbound requests. */
  OUTBOUND_USER_AGENT: z.string().default('agent-platform-integrations/1.0'),
  /** Base URLs the integration modules declare (SLACK_API_URL, TELEGRAM_API_URL, …; see the modules). */
  ...(integrationsEnv as object),
};
