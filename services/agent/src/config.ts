import { z } from 'zod';

const ms = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Variables of the agent service beyond the base ones (PORT, NATS_URL, MONGO_URL, …). */
export const agentEnv = {
  /** Its own database. */
  MONGO_DB: z.string().default('agent'),
  /** Deadline of one model call (an attempt); the integration service gets the same deadline. */
  PROVIDER_TIMEOUT_MS: ms(100, 600_000).default(60_000),
  /** Attempts of a model call that fails with a timeout, 429 or 5xx before the session is Failed. */
  PROVIDER_MAX_ATTEMPTS: ms(1, 10).default(3),
  /** First backoff between attempts; it doubles each time (with jitter). */
  PROVIDER_BACKOFF_MS: ms(0, 60_000).default(500),
  /**
   * A turn holds its session with a lease that it renews while it runs; a turn whose process died
   * frees the session after this long (continuing it meanwhile answers 409).
   */
  TURN_LEASE_MS: ms(1_000, 3_600_000).default(60_000),
  /** How often the idle sweeper looks for Active sessions past their idle timeout. */
  IDLE_SWEEP_MS: ms(100, 600_000).default(5_000),
  /** How long a publish to JetStream may wait for its acknowledgement before it is left for the relay. */
  PUBLISH_TIMEOUT_MS: ms(100, 60_000).default(5_000),
  /** How often the relay looks for session commands that could not be published. */
  COMMAND_RELAY_MS: ms(100, 600_000).default(2_000),
  /**
   * Age after which a queued command is the relay's to publish; younger ones belong to the turn that
   * queued them (it publishes them itself), so the relay does not get in a running conversation's way.
   */
  COMMAND_RELAY_AGE_MS: ms(100, 3_600_000).default(10_000),
  /** How long a turn waits for its session while the relay or the sweeper looks at it (then 409). */
  TURN_LOCK_WAIT_MS: ms(0, 60_000).default(2_000),
  /** How often domain events left in the outbox are published again. */
  OUTBOX_RELAY_MS: ms(100, 600_000).default(2_000),
  /** Comment lines sent on idle event streams so that proxies keep them open. */
  SSE_HEARTBEAT_MS: ms(100, 600_000).default(15_000),
  /** Earlier messages of a session sent to the model with each turn (the newest whole turns). */
  CONTEXT_MAX_MESSAGES: ms(2, 10_000).default(100),
  /** Size limit of that context, as JSON (older turns are dropped first). */
  CONTEXT_MAX_BYTES: ms(1_024, 8_388_608).default(262_144),
  /** How long an integration's action catalog (tool argument schemas) is cached. */
  CATALOG_CACHE_MS: ms(0, 3_600_000).default(60_000),
};
