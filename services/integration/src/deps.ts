import type { NatsConnection } from '@nats-io/transport-node';
import type { Connection } from 'mongoose';
import type { z } from 'zod';
import type { Logger, Outbox } from '@platform/kit';
import type { integrationEnv } from './config.ts';

export type IntegrationConfig = z.infer<z.ZodObject<typeof integrationEnv>> & {
  INTERNAL_TOKEN_SECRET: string;
  BODY_LIMIT: string;
};

/** What the integration domain functions need; built once in service.ts. */
export interface IntegrationDeps {
  config: IntegrationConfig;
  db: Connection;
  logger: Logger;
  /** Domain events (evt.connection.*), at least once. */
  outbox: Outbox;
  /** Chat streaming publishes chunks to the caller's subject. */
  nc: NatsConnection;
}
