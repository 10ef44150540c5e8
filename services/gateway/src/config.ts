import { z } from 'zod';
import { plansFromEnv } from './rate-limit/plans.ts';

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
  /** `iss` and `aud` that access tokens must carry (the auth service's TOKEN_ISSUER/TOKEN_AUDIENCE). */
  TOKEN_ISSUER: z.string().default('https://auth.platform.local'),
  TOKEN_AUDIENCE: z.string().default('platform-api'),
  /** Clock skew allowed on `exp` and `nbf`. */
  TOKEN_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(120).default(10),
  /** How long a verified API key is trusted before asking auth again (revocation bound: ≤ 5 s). */
  API_KEY_CACHE_MS: z.coerce.number().int().min(0).max(5_000).default(2_000),
  /** Lifetime of the internal identity tokens sent to services. */
  INTERNAL_TOKEN_TTL_SECONDS: z.coerce.number().int().min(5).max(300).default(60),
  /**
   * Requests per window per organization, by plan: `name=limit/windowSeconds` or `name=unlimited`,
   * comma separated. An organization whose plan is not listed gets RATE_LIMIT_FALLBACK_PLAN's limit.
   */
  RATE_LIMIT_PLANS: plansFromEnv.default(plansFromEnv.parse('pro=1000/60,enterprise=unlimited')),
  RATE_LIMIT_FALLBACK_PLAN: z.string().default('pro'),
  /**
   * Share of a plan's limit a gateway takes from the shared budget at once (at least 1 request).
   * The limit can be exceeded by at most (gateways × batch): 2 × 2 for Pro's 1,000 at the default.
   */
  RATE_LIMIT_BATCH_FRACTION: z.coerce.number().min(0).max(0.1).default(0.002),
  /** Which proxies' X-Forwarded-For to believe (express `trust proxy`), for per-address login limits. */
  TRUST_PROXY: z.string().default('loopback, linklocal, uniquelocal'),
};
