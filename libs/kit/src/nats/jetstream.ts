import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JsMsg,
} from '@nats-io/jetstream';
import { headers as natsHeadersOf, nanos, type NatsConnection } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { natsHeaders, type EventDef } from '@platform/contracts';
import type { Logger } from '../logger.ts';
import { AppError, UnavailableError } from '../errors.ts';
import type { InFlight } from './in-flight.ts';

export interface StreamSpec {
  name: string;
  subjects: readonly string[];
  /** `workqueue`: a message is removed once acknowledged (queues of work); `limits`: kept (events). */
  retention?: 'limits' | 'workqueue';
  /** Window in which a repeated Nats-Msg-Id is dropped as a duplicate. */
  duplicateWindowMs?: number;
  maxAgeMs?: number;
  /** Copies kept by a JetStream cluster (3 in production, 1 on a single server). */
  replicas?: number;
}

/** NATS_STREAM_REPLICAS: 3 on the production cluster, 1 (default) on a single server. */
const defaultReplicas = Number(process.env.NATS_STREAM_REPLICAS ?? 1);

/** Creates the stream or updates it to the spec; safe to call from every replica at start. */
export async function ensureStream(nc: NatsConnection, spec: StreamSpec): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = {
    name: spec.name,
    subjects: [...spec.subjects],
    storage: StorageType.File,
    retention: spec.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
    duplicate_window: nanos(spec.duplicateWindowMs ?? 2 * 60_000),
    max_age: nanos(spec.maxAgeMs ?? 0),
    num_replicas: spec.replicas ?? defaultReplicas,
  };
  try {
    await jsm.streams.info(spec.name);
    await jsm.streams.update(spec.name, config);
  } catch (err) {
    if ((err as Error).name === 'StreamNotFoundError' || /not found/i.test((err as Error).message)) {
      await jsm.streams.add(config);
    } else {
      throw err;
    }
  }
}

/** The EVENTS stream (every `evt.>` domain event, kept 30 days) and the dead-letter stream. */
export async function ensureEventStreams(nc: NatsConnection): Promise<void> {
  await ensureStream(nc, {
    name: 'EVENTS',
    subjects: ['evt.>'],
    maxAgeMs: 30 * 86_400_000,
    duplicateWindowMs: 10 * 60_000,
  });
  await ensureStream(nc, deadLetterStream);
}

/** The most messages one pull asks for (never more than the consumer's free handler slots). */
const MAX_PULL_BATCH = 64;

/** Dead letters of every durable consumer go here, as `dlq.<stream>.<consumer>`. */
export const deadLetterStream: StreamSpec = {
  name: 'DEADLETTER',
  subjects: ['dlq.>'],
  maxAgeMs: 30 * 86_400_000,
};

/**
 * Publishes a domain event at least once: the event id is the Nats-Msg-Id, so a retried publish
 * within the stream's duplicate window is stored once.
 */
export async function publishEvent<D extends EventDef>(
  js: JetStreamClient,
  def: D,
  event: z.input<D['payload']> & { id: string },
  options: { requestId?: string } = {},
): Promise<void> {
  const payload = def.payload.parse(event);
  const h = natsHeadersOf();
  if (options.requestId) h.set(natsHeaders.requestId, options.requestId);
  try {
    await js.publish(def.subject, JSON.stringify(payload), { msgID: event.id, headers: h });
  } catch (err) {
    throw new UnavailableError(`Could not publish ${def.subject}: ${(err as Error).message}`);
  }
}

export interface ConsumerSpec<T> {
  stream: string;
  durable: string;
  filterSubjects: string[];
  /** Deliveries before a message is dead-lettered. */
  maxDeliver?: number;
  ackWaitMs?: number;
  /** Redelivery delays after a failed attempt (the last one repeats). */
  backoffMs?: number[];
  concurrency?: number;
  parse: (data: unknown) => T;
  /**
   * Resolving acknowledges the message. Resolving `{ redeliverInMs }` instead asks for the same
   * message again after that delay (a durable timer: not a failure, nothing is logged).
   */
  handler: (
    payload: T,
    ctx: { msg: JsMsg; log: Logger; requestId: string; attempt: number },
  ) => Promise<void | { redeliverInMs: number }>;
  /** Messages delivered but not yet acknowledged (including those waiting for a redelivery). */
  maxAckPending?: number;
}

export interface ConsumerHandle {
  stop(): Promise<void>;
}

function isRetryable(err: unknown): boolean {
  return !(err instanceof AppError) || err.kind === 'unavailable' || err.kind === 'timeout';
}

/**
 * A durable pull consumer with explicit ack: a message is acknowledged only after its handler
 * resolved (its result is stored); a failure is retried after a backoff until maxDeliver, then copied
 * to `dlq.<stream>.<durable>` and terminated. A crashed process's unacknowledged messages are
 * redelivered to another replica after ackWait.
 */
export async function startConsumer<T>(
  nc: NatsConnection,
  spec: ConsumerSpec<T>,
  options: { logger: Logger; inFlight?: InFlight },
): Promise<ConsumerHandle> {
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const maxDeliver = spec.maxDeliver ?? 5;
  const backoff = spec.backoffMs ?? [1_000, 5_000, 30_000];
  const config = {
    durable_name: spec.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(spec.ackWaitMs ?? 30_000),
    max_deliver: maxDeliver,
    filter_subjects: spec.filterSubjects,
    max_ack_pending: spec.maxAckPending ?? Math.max(1000, (spec.concurrency ?? 1) * 4),
  };
  try {
    await jsm.consumers.info(spec.stream, spec.durable);
    await jsm.consumers.update(spec.stream, spec.durable, config);
  } catch {
    await jsm.consumers.add(spec.stream, config);
  }
  const log = options.logger.child({ consumer: spec.durable });
  const concurrency = spec.concurrency ?? 1;
  let stopped = false;
  let active = 0;
  let wake: (() => void) | undefined;
  const running = new Set<Promise<void>>();

  const handleOne = async (msg: JsMsg) => {
    const requestId = msg.headers?.get(natsHeaders.requestId) || randomUUID();
    const attempt = msg.info.deliveryCount;
    const mlog = log.child({ requestId, subject: msg.subject, attempt });
    let payload: T;
    try {
      payload = spec.parse(msg.json());
    } catch (err) {
      mlog.error({ err: (err as Error).message }, 'invalid message, dead-lettered');
      await deadLetter(js, spec, msg, 'invalid payload');
      msg.term('invalid payload');
      return;
    }
    try {
      const outcome = await spec.handler(payload, { msg, log: mlog, requestId, attempt });
      if (outcome) msg.nak(Math.max(0, Math.round(outcome.redeliverInMs)));
      else await msg.ackAck().catch(() => msg.ack());
    } catch (err) {
      const retry = isRetryable(err) && attempt < maxDeliver;
      if (retry) {
        const delay = backoff[Math.min(attempt - 1, backoff.length - 1)] ?? 1_000;
        mlog.warn({ err: (err as Error).message, delayMs: delay }, 'message failed, will retry');
        msg.nak(delay);
      } else {
        mlog.error({ err: (err as Error).message }, 'message failed for good, dead-lettered');
        await deadLetter(js, spec, msg, (err as Error).message);
        msg.term((err as Error).message.slice(0, 200));
      }
    }
  };

  const loop = async () => {
    while (!stopped) {
      try {
        const consumer = await js.consumers.get(spec.stream, spec.durable);
        while (!stopped) {
          if (active >= concurrency) {
            await new Promise<void>((resolve) => (wake = resolve));
            continue;
          }
          // One pull for as many messages as there are free slots: `next()` cost a pull request
          // (and a subscription) per message, which dominated the consumers' CPU under load. Each
          // message starts as it arrives, so nothing waits in a client buffer while its ack time runs.
          const batch = await consumer.fetch({
            max_messages: Math.min(concurrency - active, MAX_PULL_BATCH),
            expires: 1_000,
          });
          for await (const msg of batch) {
            if (stopped) {
              msg.nak();
              continue;
            }
            active++;
            const work = (
              options.inFlight ? options.inFlight.run(() => handleOne(msg)) : handleOne(msg)
            ).finally(() => {
              active--;
              running.delete(work);
              wake?.();
            });
            running.add(work);
          }
        }
      } catch (err) {
        if (stopped) break;
        log.warn({ err: (err as Error).message }, 'consumer interrupted, retrying');
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  };
  const looping = loop();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await looping;
      await Promise.allSettled([...running]);
    },
  };
}

async function deadLetter<T>(js: JetStreamClient, spec: ConsumerSpec<T>, msg: JsMsg, reason: string) {
  const h = natsHeadersOf();
  h.set('Dlq-Reason', reason.slice(0, 500));
  h.set('Dlq-Original-Subject', msg.subject);
  h.set(natsHeaders.msgId, `${spec.stream}:${msg.seq}`);
  try {
    await js.publish(`dlq.${spec.stream}.${spec.durable}`, msg.data, {
      headers: h,
      msgID: `${spec.stream}:${msg.seq}`,
    });
  } catch {
    // The DEADLETTER stream may not exist in a minimal setup; the termination is still logged.
  }
}
