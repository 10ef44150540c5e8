import { z } from 'zod';

const upstream = z.string().url().optional();

/** Variables of the gateway beyond the base ones. A service whose URL is unset is not routed. */
export const gatewayEnv = {
  /** Public port. */
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Base URL of each service (e.g. http://auth:3000). */
  AUTH_URL: upstream,
  WORKFLOW_URL: upstream,
  EXECUTION_URL: upstream,
  AGENT_URL: upstream,
  INTEGRATION_URL: upstream,
  SESSION_URL: upstream,
  WEBHOOK_URL: upstream,
  /** An upstream that has not answered after this long gets the client a 504. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** Keep-alive sockets per upstream. */
  UPSTREAM_MAX_SOCKETS: z.coerce.number().int().positive().default(256),
  /** Origins allowed by CORS (comma separated, `*` for any). */
  CORS_ORIGINS: z.string().default('*'),
};
