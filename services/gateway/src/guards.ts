import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger, ReadinessCheck } from '@platform/kit';
import { accessTokenVerifier } from './auth/access-tokens.ts';
import { apiKeyVerifier } from './auth/api-keys.ts';
import { authenticate } from './auth/authenticate.ts';
import { attachInternalToken } from './auth/internal-token.ts';
import { SigningKeys } from './auth/jwks.ts';
import { publicRouteMatcher } from './auth/public-routes.ts';
import { RevocationList } from './auth/revocations.ts';
import { Limiter } from './rate-limit/limiter.ts';
import { rateLimit } from './rate-limit/middleware.ts';
import type { PlanTable } from './rate-limit/plans.ts';
import { SharedWindow } from './rate-limit/shared-window.ts';
import type { Guard } from './exchange.ts';

export interface GuardSettings {
  INTERNAL_TOKEN_SECRET: string;
  INTERNAL_TOKEN_TTL_SECONDS: number;
  TOKEN_ISSUER: string;
  TOKEN_AUDIENCE: string;
  TOKEN_CLOCK_SKEW_SECONDS: number;
  API_KEY_CACHE_MS: number;
  RATE_LIMIT_PLANS: PlanTable;
  RATE_LIMIT_FALLBACK_PLAN: string;
  RATE_LIMIT_BATCH_FRACTION: number;
}

/**
 * The gateway's guards, in order: authentication (access JWT or API key, revocations, viewers
 * read-only), the per-organization rate limit, then the internal identity token for the service.
 */
export function buildGuards(nc: NatsConnection, config: GuardSettings, logger: Logger) {
  const keys = new SigningKeys(nc, logger);
  void keys.refresh().catch(() => undefined);
  const revocations = new RevocationList(nc, logger);
  const limiter = new Limiter(new SharedWindow(nc), config.RATE_LIMIT_BATCH_FRACTION, logger);
  const guards: Guard[] = [
    authenticate({
      isPublic: publicRouteMatcher(),
      verifyAccessToken: accessTokenVerifier({
        keys,
        issuer: config.TOKEN_ISSUER,
        audience: config.TOKEN_AUDIENCE,
        skewSeconds: config.TOKEN_CLOCK_SKEW_SECONDS,
      }),
      verifyApiKey: apiKeyVerifier(nc, config.API_KEY_CACHE_MS),
      revocations,
    }),
    rateLimit({ limiter, plans: config.RATE_LIMIT_PLANS, fallbackPlan: config.RATE_LIMIT_FALLBACK_PLAN }),
    attachInternalToken(config.INTERNAL_TOKEN_SECRET, config.INTERNAL_TOKEN_TTL_SECONDS),
  ];
  const readiness: ReadinessCheck = { name: 'revocations', check: async () => revocations.isLoaded() };
  return {
    guards,
    readiness,
    stop() {
      keys.stop();
      revocations.stop();
      limiter.stop();
    },
  };
}
