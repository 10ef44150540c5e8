import type { ServiceDefinition } from '@platform/kit';
import { buildApp } from './app.ts';
import { authEnv } from './config.ts';
import type { AuthDeps } from './deps.ts';
import { loadActiveSigningKey, type ActiveSigningKey } from './domain/signing-keys.ts';
import { serveAuthRpc } from './rpc/handlers.ts';

export const authService: ServiceDefinition<typeof authEnv> = {
  name: 'auth',
  env: authEnv,
  database: (config) => config.MONGO_DB,
  async start({ config, logger, nats, db, inFlight, readiness }) {
    let key: Promise<ActiveSigningKey> | undefined;
    const deps: AuthDeps = {
      config,
      db,
      logger,
      tokens: {
        issuer: config.TOKEN_ISSUER,
        audience: config.TOKEN_AUDIENCE,
        accessTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
        refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
      },
      signingKey: () => {
        key ??= loadActiveSigningKey(db, config.KEY_ENCRYPTION_KEYS).catch((err) => {
          key = undefined;
          throw err;
        });
        return key;
      },
    };
    const subscriptions = serveAuthRpc(nats.nc, deps, inFlight);
    return {
      app: buildApp(deps, readiness),
      stop: async () => {
        for (const s of subscriptions) s.unsubscribe();
      },
    };
  },
};
