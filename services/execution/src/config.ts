import { z } from 'zod';
import { booleanFromEnv } from '@platform/kit';

/** Variables of the execution service beyond the base ones (PORT, NATS_URL, MONGO_URL, …). */
export const executionEnv = {
  /** Its own database. */
  MONGO_DB: z.string().default('execution'),
  /** http steps may call private, loopback and link-local addresses (true only in local runs). */
  ALLOW_PRIVATE_NETWORK: booleanFromEnv.default(false),
  /** Executions one replica runs at once (each holds its work message while it runs). */
  EXECUTION_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  /**
   * How long a work message may go without a heartbeat before JetStream gives it to another
   * replica: the time to resume an execution after a crash (kill -9).
   */
  EXECUTION_ACK_WAIT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /**
   * A parked execution (delay, retry backoff, waiting for a child or a concurrency slot) is looked
   * at again at least this often, so a cancel takes effect within this time.
   */
  EXECUTION_PARK_SLICE_MS: z.coerce.number().int().min(200).max(3_600_000).default(15_000),
  /** Largest step output (JSON bytes); larger outputs fail the step with output_too_large. */
  STEP_OUTPUT_LIMIT_BYTES: z.coerce.number().int().min(1024).max(4_194_304).default(262_144),
  /** Log lines kept per execution; later lines are counted, not stored. */
  EXECUTION_LOG_LIMIT: z.coerce.number().int().min(10).max(100_000).default(1000),
  /** Default execution timeout (from its start) when the workflow sets none. */
  EXECUTION_DEFAULT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(7 * 86_400_000),
  /** Delete finished executions older than this many days (0: keep forever, the default). */
  EXECUTION_RETENTION_DAYS: z.coerce.number().min(0).default(0),
  /** How often the retention and housekeeping jobs run. */
  HOUSEKEEPING_INTERVAL_MS: z.coerce.number().int().min(100).default(3_600_000),
};
