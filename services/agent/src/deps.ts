import type { Connection } from 'mongoose';
import type { z } from 'zod';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { InFlight, Logger, Outbox } from '@platform/kit';
import type { agentEnv } from './config.ts';
import type { SessionLog } from './bookkeeping/session-log.ts';
import type { Catalog } from './tools/catalog.ts';

export type AgentServiceConfig = z.infer<z.ZodObject<typeof agentEnv>> & {
  INTERNAL_TOKEN_SECRET: string;
  BODY_LIMIT: string;
};

/** What the agent domain functions need; built once in service.ts. */
export interface AgentDeps {
  config: AgentServiceConfig;
  db: Connection;
  logger: Logger;
  nc: NatsConnection;
  js: JetStreamClient;
  outbox: Outbox;
  /** Writes conversations into the session service, in order, once per command. */
  sessionLog: SessionLog;
  /** Integration catalog lookups (cached): action schemas for tools, connection checks. */
  catalog: Catalog;
  inFlight: InFlight;
  now: () => Date;
}
