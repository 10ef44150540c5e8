import type { Connection } from 'mongoose';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { z } from 'zod';
import type { InFlight, KeyRing, Logger, Outbox } from '@platform/kit';
import type { webhookEnv } from './config.ts';
import type { Gate } from './domain/gate.ts';

export type WebhookConfig = z.infer<z.ZodObject<typeof webhookEnv>> & {
  INTERNAL_TOKEN_SECRET: string;
  BODY_LIMIT: string;
};

/** What the webhook domain functions need; built once in service.ts. */
export interface WebhookDeps {
  config: WebhookConfig;
  db: Connection;
  logger: Logger;
  nc: NatsConnection;
  js: JetStreamClient;
  /** Encrypts the endpoints' signing secrets at rest. */
  keyRing: KeyRing;
  /** Publishes the service's own events (webhook.disabled). */
  outbox: Outbox;
  inFlight: InFlight;
  /** Bounds the delivery path's concurrent database writes. */
  writes: Gate;
}
