import { z, type ZodObject, type ZodRawShape } from 'zod';

/** Thrown when the environment does not satisfy a service's config schema; names each variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Variables every service reads. Each service extends this with its own. */
export const baseEnv = {
  /** Port of the HTTP server (0 picks a free one, used by tests). */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface to listen on. */
  HOST: z.string().default('0.0.0.0'),
  /** NATS server(s), comma separated. */
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** MongoDB connection string (MongoDB 7+ or FerretDB 1.24). */
  MONGO_URL: z.string().default('mongodb://127.0.0.1:27017'),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Shared secret (≥32 chars) that signs the gateway's short-lived internal identity tokens. */
  INTERNAL_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters'),
  /** How long a graceful shutdown may take before the process exits anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  /** Copies of each JetStream stream: 3 on the production cluster, 1 on a single server. */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** Largest JSON body accepted. */
  BODY_LIMIT: z.string().default('1mb'),
};

export const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Parses env against a schema; on failure throws a ConfigError naming every bad variable. */
export function loadConfig<S extends ZodRawShape>(
  shape: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<ZodObject<S>> {
  const result = z.object(shape).safeParse(env);
  if (result.success) return result.data as z.infer<ZodObject<S>>;
  throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
}
