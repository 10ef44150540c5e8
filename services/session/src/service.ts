import { ensureEventStreams, ensureStream, Outbox, type ServiceDefinition } from '@platform/kit';
import { sessionIngestStream } from '@platform/contracts';
import { buildApp } from './app.ts';
import { sessionEnv } from './config.ts';
import type { SessionDeps } from './deps.ts';
import { KeyedLock } from './domain/keyed-lock.ts';
import { startIngest } from './ingest/consumer.ts';
import { ensureIndexes } from './models/indexes.ts';
import { serveSessionRpc } from './rpc/handlers.ts';

export const sessionService: ServiceDefinition<typeof sessionEnv> = {
  name: 'session',
  env: sessionEnv,
  database: (config) => config.MONGO_DB,
  async start({ config, logger, nats, js, db, inFlight, readiness }) {
    // The same EVENTS settings as every other service (kit), so services starting together agree.
    await ensureEventStreams(nats.nc);
    await ensureStream(nats.nc, sessionIngestStream);
    await ensureIndexes(db);
    const outbox = new Outbox(db, js, logger);
    outbox.start(config.OUTBOX_RELAY_MS);
    const deps: SessionDeps = {
      config,
      db,
      logger,
      js,
      outbox,
      locks: new KeyedLock(),
      now: () => new Date(),
    };
    const subscriptions = serveSessionRpc(nats.nc, deps, inFlight);
    const ingest = await startIngest(nats.nc, deps, inFlight);
    return {
      app: buildApp(deps, readiness),
      stop: async () => {
        for (const s of subscriptions) s.unsubscribe();
        await ingest.stop();
        outbox.stop();
      },
    };
  },
};
