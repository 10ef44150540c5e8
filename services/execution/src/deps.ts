import type { Connection } from 'mongoose';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { z } from 'zod';
import type { Logger } from '@platform/kit';
import type { executionEnv } from './config.ts';
import type { CancelSignals } from './engine/cancel-signals.ts';

export type ExecutionConfig = z.infer<z.ZodObject<typeof executionEnv>> & {
  INTERNAL_TOKEN_SECRET: string;
  BODY_LIMIT: string;
};

/** What the execution domain and engine need; built once in service.ts. */
export interface ExecutionDeps {
  config: ExecutionConfig;
  db: Connection;
  logger: Logger;
  nc: NatsConnection;
  js: JetStreamClient;
  /** Abort signals of the steps this replica is running, by execution id. */
  cancels: CancelSignals;
}
