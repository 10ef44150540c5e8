import type { JetStreamClient } from '@nats-io/jetstream';
import type { Connection } from 'mongoose';
import type { z } from 'zod';
import type { Logger, Outbox } from '@platform/kit';
import type { sessionEnv } from './config.ts';
import type { KeyedLock } from './domain/keyed-lock.ts';

export type SessionConfig = z.infer<z.ZodObject<typeof sessionEnv>> & {
  INTERNAL_TOKEN_SECRET: string;
  BODY_LIMIT: string;
};

/** What the session domain functions need; built once in service.ts. */
export interface SessionDeps {
  config: SessionConfig;
  db: Connection;
  logger: Logger;
  js: JetStreamClient;
  /** Lifecycle events (evt.session.*) go through the outbox so that none is lost while NATS is away. */
  outbox: Outbox;
  /** Serializes writes per document key (FerretDB loses concurrent updates of one document). */
  locks: KeyedLock;
  /** The clock; every "now" of the domain comes from here. */
  now: () => Date;
}
