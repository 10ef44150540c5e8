import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Connection } from 'mongoose';
import type { z, ZodRawShape } from 'zod';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { baseEnv, ConfigError, loadConfig } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { connectNats, type NatsHandle } from './nats/connection.ts';
import { InFlight } from './nats/in-flight.ts';
import { connectMongo, pingMongo } from './mongo.ts';
import type { ReadinessCheck } from './health.ts';

type BaseConfig = z.infer<z.ZodObject<typeof baseEnv>>;

export interface ServiceContext<C> {
  config: C & BaseConfig;
  logger: Logger;
  nats: NatsHandle;
  js: JetStreamClient;
  /** The service's own database (absent when `database` is not set). */
  db: Connection;
  /** Work started from NATS messages; shutdown waits for it. */
  inFlight: InFlight;
  /** Probes for /readyz: NATS and MongoDB, plus any the service adds. */
  readiness: ReadinessCheck[];
}

export interface ServiceDefinition<S extends ZodRawShape> {
  name: string;
  /** Variables beyond the base ones (PORT, NATS_URL, MONGO_URL, …). */
  env: S;
  /** Name of the service's own MongoDB database; omit for services without storage (gateway). */
  database?: (config: z.infer<z.ZodObject<S>> & BaseConfig) => string;
  /** Builds the app and starts subscriptions; returns what to stop on shutdown. */
  start: (
    ctx: ServiceContext<z.infer<z.ZodObject<S>>>,
  ) => Promise<{ app: RequestListener; stop?: () => Promise<void> }>;
}

export interface RunningService {
  port: number;
  url: string;
  logger: Logger;
  /** Graceful stop: stop accepting, finish in-flight work, drain NATS, close MongoDB. */
  close(): Promise<void>;
}

/**
 * Wires a service: config (a bad variable stops it with a message naming the variable), logger,
 * NATS, MongoDB, the app, listening, and graceful shutdown. `main.ts` of each service calls this.
 */
export async function startService<S extends ZodRawShape>(
  def: ServiceDefinition<S>,
  env: Record<string, string | undefined> = process.env,
): Promise<RunningService> {
  const config = loadConfig({ ...baseEnv, ...def.env }, env) as z.infer<z.ZodObject<S>> & BaseConfig;
  const logger = createLogger(def.name, config.LOG_LEVEL);
  const nats = await connectNats(config.NATS_URL, def.name, logger);
  const db = def.database
    ? await connectMongo(config.MONGO_URL, def.database(config), logger)
    : (undefined as never);
  const inFlight = new InFlight();
  const readiness: ReadinessCheck[] = [{ name: 'nats', check: nats.ping }];
  if (db) readiness.push({ name: 'mongodb', check: () => pingMongo(db) });
  const { app, stop } = await def.start({
    config,
    logger,
    nats,
    js: jetstream(nats.nc),
    db,
    inFlight,
    readiness,
  });

  const server: Server = await new Promise((resolve) => {
    const s = createServer(app).listen(config.PORT, config.HOST, () => resolve(s));
  });
  server.keepAliveTimeout = 65_000;
  const port = (server.address() as AddressInfo).port;
  logger.info({ port }, `${def.name} listening`);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      logger.info('shutting down');
      const timer = setTimeout(() => {
        logger.error('shutdown took too long, exiting');
        process.exit(1);
      }, config.SHUTDOWN_TIMEOUT_MS);
      timer.unref();
      const httpClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await stop?.();
      await httpClosed;
      await inFlight.idle();
      await nats.nc.drain().catch(() => undefined);
      await db?.close().catch(() => undefined);
      clearTimeout(timer);
      logger.info('stopped');
    })();
    return closing;
  };
  return { port, url: `http://127.0.0.1:${port}`, logger, close };
}

/** Process entry: starts the service and stops it gracefully on SIGTERM/SIGINT. */
export async function runService<S extends ZodRawShape>(def: ServiceDefinition<S>): Promise<void> {
  let running: RunningService;
  try {
    running = await startService(def);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`${def.name}: ${err.message}\nSet the variables above and start again.`);
    } else {
      console.error(`${def.name}: failed to start: ${(err as Error).message}`);
    }
    process.exit(1);
  }
  const onSignal = (signal: string) => {
    running.logger.info({ signal }, 'signal received');
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
