import { ensureEventStreams, Outbox, type ServiceDefinition } from '@platform/kit';
import { buildApp } from './app.ts';
import { integrationEnv } from './config.ts';
import type { IntegrationDeps } from './deps.ts';
import { serveIntegrationRpc } from './rpc/handlers.ts';

export const integrationService: ServiceDefinition<typeof integrationEnv> = {
  name: 'integration',
  env: integrationEnv,
  database: (config) => config.MONGO_DB,
  async start({ config, logger, nats, js, db, inFlight, readiness }) {
    await ensureEventStreams(nats.nc);
    const outbox = new Outbox(db, js, logger);
    outbox.start();
    const deps: IntegrationDeps = { config, db, logger, outbox, nc: nats.nc };
    const subscriptions = serveIntegrationRpc(nats.nc, deps, inFlight);
    return {
      app: buildApp(deps, readiness),
      stop: async () => {
        for (const s of subscriptions) s.unsubscribe();
        outbox.stop();
      },
    };
  },
};
