import { ConfigError, ensureEventStreams, Outbox, type ServiceDefinition } from '@platform/kit';
import { buildApp } from './app.ts';
import { webhookEnv } from './config.ts';
import type { WebhookDeps } from './deps.ts';
import { Gate } from './domain/gate.ts';
import { startDeliveryWorker } from './rpc/delivery-worker.ts';
import { consumeEvents } from './rpc/event-consumer.ts';
import { startTimers } from './rpc/timers.ts';

export const webhookService: ServiceDefinition<typeof webhookEnv> = {
  name: 'webhook',
  env: webhookEnv,
  database: (config) => config.MONGO_DB,
  async start({ config, logger, nats, js, db, inFlight, readiness }) {
    const keyRing = config.WEBHOOK_SECRETS_KEYS ?? config.KEY_ENCRYPTION_KEYS;
    if (!keyRing) {
      throw new ConfigError(['WEBHOOK_SECRETS_KEYS: required (`kid:base64 of 32 random bytes`)']);
    }
    if (!config.WEBHOOK_SECRETS_KEYS) {
      logger.warn('WEBHOOK_SECRETS_KEYS is not set; webhook secrets are encrypted with KEY_ENCRYPTION_KEYS');
    }
    await ensureEventStreams(nats.nc);
    const outbox = new Outbox(db, js, logger);
    outbox.start();
    const writes = new Gate(config.WEBHOOK_DB_WRITERS);
    const deps: WebhookDeps = { config, db, logger, nc: nats.nc, js, keyRing, outbox, inFlight, writes };
    const worker = await startDeliveryWorker(deps);
    const events = await consumeEvents(deps);
    const timers = startTimers(deps);
    return {
      app: buildApp(deps, readiness),
      stop: async () => {
        timers.stop();
        await events.stop();
        await worker.stop();
        outbox.stop();
      },
    };
  },
};
