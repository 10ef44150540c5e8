import { AckPolicy, DeliverPolicy, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { natsHeaders, WebhookDeliveryJob, webhookStreams } from '@platform/contracts';
import { ensureStream } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { runAttempt } from '../domain/deliver.ts';
import { Lanes } from './lanes.ts';

const durable = 'webhook-deliver';

/**
 * The delivery pool: work messages (one per attempt) from the WEBHOOK_DELIVERIES work queue, at most
 * WEBHOOK_CONCURRENCY at once, and at most WEBHOOK_ENDPOINT_CONCURRENCY per endpoint. A message for an
 * endpoint whose slots are all taken waits in that endpoint's lane (see lanes.ts), so a slow or dead
 * endpoint's timeouts hold only its own slots and never the others'.
 * A message is acknowledged after its attempt's result is stored; while the attempt runs, heartbeats
 * keep JetStream from handing it to another replica; after a crash it is redelivered after ack wait.
 */
export async function startDeliveryWorker(deps: WebhookDeps): Promise<{ stop(): Promise<void> }> {
  const { nc, config, logger } = deps;
  await ensureStream(nc, {
    name: webhookStreams.deliveries.name,
    subjects: [webhookStreams.deliveries.subject],
    retention: 'workqueue',
    duplicateWindowMs: 10 * 60_000,
  });
  const jsm = await jetstreamManager(nc);
  const consumerConfig = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(config.WEBHOOK_ACK_WAIT),
    // Unlimited: messages handed back (from a saturated lane, or after a database error) come again
    // without being attempts; the number of attempts is kept, and bounded, by each delivery.
    max_deliver: -1,
    max_ack_pending: config.WEBHOOK_MAX_ACK_PENDING,
  };
  try {
    await jsm.consumers.info(webhookStreams.deliveries.name, durable);
    await jsm.consumers.update(webhookStreams.deliveries.name, durable, consumerConfig);
  } catch {
    await jsm.consumers.add(webhookStreams.deliveries.name, consumerConfig);
  }

  const log = logger.child({ consumer: durable });
  const heartbeatMs = Math.max(250, Math.floor(config.WEBHOOK_ACK_WAIT / 3));
  // Messages held at once (running + waiting in their endpoint's lane); below max_ack_pending.
  const heldCap = Math.min(config.WEBHOOK_CONCURRENCY * 8, Math.floor(config.WEBHOOK_MAX_ACK_PENDING / 2));
  const running = new Set<Promise<void>>();
  let stopped = false;
  let wake: (() => void) | undefined;
  type Item = { msg: JsMsg; job: WebhookDeliveryJob };

  const handle = async (msg: JsMsg, job: WebhookDeliveryJob) => {
    const requestId = msg.headers?.get(natsHeaders.requestId) || undefined;
    const heartbeat = setInterval(() => msg.working(), heartbeatMs);
    try {
      await runAttempt(deps, job, log, requestId);
      await msg.ackAck().catch(() => msg.ack());
    } catch (err) {
      // MongoDB or NATS trouble: the attempt's result is not stored, so it runs again later.
      log.warn({ err: (err as Error).message, deliveryId: job.deliveryId }, 'attempt interrupted; retrying');
      msg.nak(2_000);
    } finally {
      clearInterval(heartbeat);
    }
  };

  const lanes = new Lanes<Item>(
    config.WEBHOOK_ENDPOINT_CONCURRENCY,
    config.WEBHOOK_CONCURRENCY,
    (_lane, { msg, job }) => {
      const work = deps.inFlight.run(() => handle(msg, job)).finally(() => running.delete(work));
      running.add(work);
      return work;
    },
    () => wake?.(),
  );
  // Waiting messages are kept alive too, so JetStream does not hand them to another replica.
  const keepAlive = setInterval(() => {
    for (const { msg } of lanes.waitingItems()) msg.working();
  }, heartbeatMs);

  const dispatch = (msg: JsMsg) => {
    let job: WebhookDeliveryJob;
    try {
      job = WebhookDeliveryJob.parse(msg.json());
    } catch {
      log.error({ seq: msg.seq }, 'invalid delivery job dropped');
      msg.term('invalid payload');
      return;
    }
    lanes.add(job.endpointId, { msg, job });
  };

  const loop = async () => {
    while (!stopped) {
      try {
        const consumer = await deps.js.consumers.get(webhookStreams.deliveries.name, durable);
        while (!stopped) {
          if (lanes.held >= heldCap) {
            if (lanes.active >= config.WEBHOOK_CONCURRENCY) {
              await new Promise<void>((resolve) => (wake = resolve));
              continue;
            }
            // Slots are free but every held message waits for a saturated endpoint: hand some of the
            // longest line back to JetStream for a while, so other endpoints' messages get fetched.
            for (const { msg } of lanes.evictFromLongest(Math.ceil(heldCap / 8))) {
              msg.nak(2_000 + Math.floor(Math.random() * 3_000));
            }
          }
          const batch = await consumer.fetch({
            max_messages: Math.min(256, heldCap - lanes.held),
            expires: 1_000,
          });
          for await (const msg of batch) {
            if (stopped) msg.nak();
            else dispatch(msg);
          }
        }
      } catch (err) {
        if (stopped) break;
        log.warn({ err: (err as Error).message }, 'delivery consumer interrupted, retrying');
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
      clearInterval(keepAlive);
      for (const { msg } of lanes.drainWaiting()) msg.nak();
      await Promise.allSettled([...running]);
    },
  };
}
