import type { ServiceDefinition } from '@platform/kit';
import { buildApp } from './app.ts';
import { authEnv } from './config.ts';
import type { AuthDeps } from './deps.ts';
import { ensureBootstrapAdmin } from './domain/bootstrap-admin.ts';
import { cleanupExpired } from './domain/cleanup.ts';
import { revocationPublisher } from './domain/revocations.ts';
import { signingKeyCache } from './domain/signing-keys.ts';
import { serveAuthRpc } from './rpc/handlers.ts';

const CLEANUP_INTERVAL_MS = 15 * 60_000;

export const authService: ServiceDefinition<typeof authEnv> = {
  name: 'auth',
  env: authEnv,
  database: (config) => config.MONGO_DB,
  async start({ config, logger, nats, db, inFlight, readiness }) {
    const keyCacheMs = config.SIGNING_KEY_CACHE_SECONDS * 1000;
    const deps: AuthDeps = {
      config,
      db,
      logger,
      tokens: {
        issuer: config.TOKEN_ISSUER,
        audience: config.TOKEN_AUDIENCE,
        accessTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
        refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
        // A replica may sign with a just-retired key for one cache period; 5 minutes cover skew.
        keyRetentionMs: config.ACCESS_TOKEN_TTL_SECONDS * 1000 + keyCacheMs + 5 * 60_000,
      },
      signingKey: signingKeyCache(db, config.KEY_ENCRYPTION_KEYS, keyCacheMs),
      revocations: revocationPublisher(nats.nc, config.ACCESS_TOKEN_TTL_SECONDS),
    };
    await deps.signingKey();
    await ensureBootstrapAdmin(deps);
    const subscriptions = serveAuthRpc(nats.nc, deps, inFlight);
    const cleanup = setInterval(() => {
      cleanupExpired(deps).catch((err: Error) => logger.warn({ err: err.message }, 'cleanup failed'));
    }, CLEANUP_INTERVAL_MS);
    cleanup.unref();
    return {
      app: buildApp(deps, readiness),
      stop: async () => {
        clearInterval(cleanup);
        for (const s of subscriptions) s.unsubscribe();
      },
    };
  },
};
