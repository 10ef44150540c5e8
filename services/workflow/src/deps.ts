import type { Connection } from 'mongoose';
import type { NatsConnection } from '@nats-io/transport-node';
import type { z } from 'zod';
import type { Logger, Outbox } from '@platform/kit';
import type { workflowEnv } from './config.ts';
import type { EventTriggerCache } from './domain/event-trigger-cache.ts';
import type { WorkflowCache } from './domain/workflow-cache.ts';

export type WorkflowConfig = z.infer<z.ZodObject<typeof workflowEnv>> & {
  INTERNAL_TOKEN_SECRET: string;
  BODY_LIMIT: string;
};

/** What the workflow domain functions need; built once in service.ts. */
export interface WorkflowDeps {
  config: WorkflowConfig;
  db: Connection;
  logger: Logger;
  nc: NatsConnection;
  outbox: Outbox;
  eventTriggers: EventTriggerCache;
  /** Live workflows for the execute paths (see workflow-cache.ts). */
  workflows: WorkflowCache;
}
