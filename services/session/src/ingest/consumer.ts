import type { NatsConnection } from '@nats-io/transport-node';
import {
  ingestCommandSchemas,
  ingestKinds,
  ingestSources,
  sessionIngestStream,
  type IngestKind,
} from '@platform/contracts';
import {
  ConflictError,
  startConsumer,
  toFieldErrors,
  ValidationError,
  type ConsumerHandle,
  type InFlight,
} from '@platform/kit';
import type { SessionDeps } from '../deps.ts';
import { addSystemEvent } from '../domain/add-event.ts';
import { addMessage } from '../domain/add-message.ts';
import { endSession } from '../domain/end-session.ts';
import { startSession } from '../domain/start-session.ts';

/** `sessions.ingest.<source>.<kind>` → which schema parses the payload. */
function routeOf(subject: string): { kind: IngestKind; source: string } | undefined {
  const [, , source, kind] = subject.split('.');
  if (!(ingestSources as readonly string[]).includes(source ?? '')) return undefined;
  if (!(ingestKinds as readonly string[]).includes(kind ?? '')) return undefined;
  return { kind: kind as IngestKind, source: source! };
}

/**
 * The durable consumer of SESSIONS_INGEST (shared by replicas). A command is acknowledged once its
 * handler resolved; a command about a session not started yet is retried with backoff; an invalid one
 * goes to the dead-letter stream. Handlers are idempotent, so a redelivery adds nothing.
 */
export async function startIngest(
  nc: NatsConnection,
  deps: SessionDeps,
  inFlight: InFlight,
): Promise<ConsumerHandle> {
  return startConsumer<unknown>(
    nc,
    {
      stream: sessionIngestStream.name,
      durable: 'session-ingest',
      filterSubjects: [...sessionIngestStream.subjects],
      maxDeliver: deps.config.INGEST_MAX_DELIVER,
      ackWaitMs: 30_000,
      backoffMs: [250, 1_000, 2_000, 5_000, 15_000],
      concurrency: deps.config.INGEST_CONCURRENCY,
      // The subject picks the schema, so the payload is validated in the handler (invalid → dead letter).
      parse: (data) => data,
      handler: async (payload, { msg, log, requestId }) => {
        const route = routeOf(msg.subject);
        if (!route) throw new ValidationError([], `unknown ingest subject ${msg.subject}`);
        const result = ingestCommandSchemas[route.kind].safeParse(payload);
        if (!result.success) {
          const errors = toFieldErrors(result.error.issues, 'body');
          log.warn({ errors }, 'invalid ingest command');
          throw new ValidationError(errors, `invalid ${route.kind} command`);
        }
        const cmd = result.data;
        switch (route.kind) {
          case 'start':
            await startSession(deps, cmd as never, route.source, requestId);
            return;
          case 'message':
            await addMessage(deps, cmd as never, requestId);
            return;
          case 'event':
            await addSystemEvent(deps, cmd as never, route.source);
            return;
          case 'end':
            try {
              await endSession(deps, cmd as never, { whenMissing: 'retry', requestId });
            } catch (err) {
              // A refused transition (the session ended otherwise already) is final: logged, not retried.
              if (!(err instanceof ConflictError)) throw err;
              log.warn(
                { sessionId: (cmd as { sessionId: string }).sessionId, err: err.message },
                'end refused',
              );
            }
        }
      },
    },
    { logger: deps.logger, inFlight },
  );
}
