import { sessionIngestStream } from '@platform/contracts';
import {
  ensureEventStreams,
  ensureStream,
  Outbox,
  purgeExpiredIdempotencyKeys,
  type ServiceDefinition,
} from '@platform/kit';
import { buildApp } from './app.ts';
import { SessionLog } from './bookkeeping/session-log.ts';
import { agentEnv } from './config.ts';
import type { AgentDeps } from './deps.ts';
import { startIdleSweeper } from './domain/idle-sweeper.ts';
import { serveAgentRpc } from './rpc/handlers.ts';
import { Catalog } from './tools/catalog.ts';

const CLEANUP_INTERVAL_MS = 15 * 60_000;

export const agentService: ServiceDefinition<typeof agentEnv> = {
  name: 'agent',
  env: agentEnv,
  database: (config) => config.MONGO_DB,
  async start({ config, logger, nats, js, db, inFlight, readiness }) {
    // The ingest stream is the session service's; ensuring it here lets either service start first.
    // Services starting together may race to create a stream: the loser tries again.
    for (let attempt = 1; ; attempt++) {
      try {
        await ensureEventStreams(nats.nc);
        await ensureStream(nats.nc, sessionIngestStream);
        break;
      } catch (err) {
        if (attempt >= 5) throw err;
        logger.warn({ err: (err as Error).message, attempt }, 'could not ensure the streams yet; retrying');
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
    const outbox = new Outbox(db, js, logger);
    outbox.start(config.OUTBOX_RELAY_MS);
    const sessionLog = new SessionLog(db, js, logger, {
      publishTimeoutMs: config.PUBLISH_TIMEOUT_MS,
      lockTtlMs: config.TURN_LEASE_MS,
    });
    sessionLog.start(config.COMMAND_RELAY_MS, config.COMMAND_RELAY_AGE_MS);
    const deps: AgentDeps = {
      config,
      db,
      logger,
      nc: nats.nc,
      js,
      outbox,
      sessionLog,
      catalog: new Catalog(nats.nc, config.CATALOG_CACHE_MS),
      inFlight,
      now: () => new Date(),
    };
    const stopSweeper = startIdleSweeper(deps);
    const subscriptions = serveAgentRpc(nats.nc, deps, inFlight);
    const cleanup = setInterval(() => {
      purgeExpiredIdempotencyKeys(db).catch((err: Error) =>
        logger.warn({ err: err.message }, 'cleanup failed'),
      );
    }, CLEANUP_INTERVAL_MS);
    cleanup.unref();
    return {
      app: buildApp(deps, readiness),
      stop: async () => {
        clearInterval(cleanup);
        stopSweeper();
        for (const s of subscriptions) s.unsubscribe();
        sessionLog.stop();
        outbox.stop();
      },
    };
  },
};
