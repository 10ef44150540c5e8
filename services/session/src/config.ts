import { z } from 'zod';

/** Variables of the session service beyond the base ones (PORT, NATS_URL, MONGO_URL, …). */
export const sessionEnv = {
  /** Its own database. */
  MONGO_DB: z.string().default('session'),
  /** Ingest commands handled at once by one replica (replicas share the durable consumer). */
  INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** Deliveries of an ingest command before it is dead-lettered (a message that arrives before its
   * session's start command is retried with backoff meanwhile). */
  INGEST_MAX_DELIVER: z.coerce.number().int().min(1).max(100).default(10),
  /** Sessions read per database round trip by the export. */
  EXPORT_BATCH_SIZE: z.coerce.number().int().min(10).max(10_000).default(1000),
  /** How often the outbox relay republishes lifecycle events that could not be sent at once. */
  OUTBOX_RELAY_MS: z.coerce.number().int().min(100).default(2000),
};
