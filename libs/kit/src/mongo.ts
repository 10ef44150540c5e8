import mongoose, { type Connection, type Model, type Schema } from 'mongoose';
import type { Logger } from './logger.ts';

/**
 * Opens the service's own database, retrying until the server answers. Commands are not buffered
 * while disconnected, so a request during an outage fails fast (→ 503) instead of hanging; the driver
 * reconnects by itself when the server is back.
 */
export async function connectMongo(url: string, dbName: string, logger: Logger): Promise<Connection> {
  for (let attempt = 1; ; attempt++) {
    const conn = mongoose.createConnection(url, {
      dbName,
      bufferCommands: false,
      serverSelectionTimeoutMS: 3_000,
      heartbeatFrequencyMS: 2_000,
      connectTimeoutMS: 3_000,
      maxPoolSize: 20,
    });
    try {
      await conn.asPromise();
      logger.info({ db: dbName }, 'mongodb connected');
      conn.on('disconnected', () => logger.warn('mongodb disconnected'));
      conn.on('reconnected', () => logger.info('mongodb reconnected'));
      return conn;
    } catch (err) {
      await conn.close().catch(() => undefined);
      const delay = Math.min(5_000, 250 * attempt);
      logger.warn({ err: (err as Error).message, attempt, retryInMs: delay }, 'mongodb not reachable yet');
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/** Readiness probe: the server answers a ping. */
export async function pingMongo(conn: Connection): Promise<boolean> {
  if (!conn.db) return false;
  await conn.db.command({ ping: 1 });
  return true;
}

/** The model of a schema on a connection, compiled once per connection. */
export function modelOn<T>(conn: Connection, name: string, schema: Schema<T>, collection: string): Model<T> {
  return (conn.models[name] as Model<T> | undefined) ?? conn.model<T>(name, schema, collection);
}
