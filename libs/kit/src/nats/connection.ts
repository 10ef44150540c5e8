import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../logger.ts';

export interface NatsHandle {
  nc: NatsConnection;
  /** False between a disconnect and the next reconnect. */
  isConnected(): boolean;
  /** Readiness probe: connected and the server answers a ping. */
  ping(): Promise<boolean>;
}

/**
 * Connects to NATS, retrying until the server answers, and reconnects forever afterwards; the status
 * is tracked so that /readyz answers 503 while the server is gone and 200 once it is back.
 */
export async function connectNats(servers: string, name: string, logger: Logger): Promise<NatsHandle> {
  const nc = await connect({
    servers: servers.split(',').map((s) => s.trim()),
    name,
    waitOnFirstConnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    reconnectJitter: 250,
    pingInterval: 5_000,
    maxPingOut: 2,
    // nats.js otherwise builds two Error objects (with stack traces) for every request and
    // JetStream publish, only to enrich a possible failure: measured at 6 % of the execution
    // service's CPU under load. Failures keep their message and cause.
    noAsyncTraces: true,
  });
  let connected = true;
  logger.info({ server: nc.getServer() }, 'nats connected');
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') {
        connected = false;
        logger.warn('nats disconnected');
      } else if (s.type === 'reconnect') {
        connected = true;
        logger.info('nats reconnected');
      }
    }
  })();
  return {
    nc,
    isConnected: () => connected && !nc.isClosed(),
    ping: async () => {
      if (!connected || nc.isClosed()) return false;
      await nc.flush();
      return true;
    },
  };
}
