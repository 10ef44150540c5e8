import { PlatformEvent } from '@platform/contracts';
import { startConsumer, type ConsumerHandle } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { fanOut } from '../domain/fan-out.ts';

/**
 * Every domain event (EVENTS, `evt.>`) through the durable consumer `webhook-fanout`: acknowledged
 * once the event is stored and its deliveries are created, so a crash in between redelivers it.
 * Fan-out only writes to MongoDB and NATS; no customer endpoint is called here.
 */
export function consumeEvents(deps: WebhookDeps): Promise<ConsumerHandle> {
  return startConsumer(
    deps.nc,
    {
      stream: 'EVENTS',
      durable: 'webhook-fanout',
      filterSubjects: ['evt.>'],
      ackWaitMs: deps.config.WEBHOOK_ACK_WAIT,
      maxDeliver: 20,
      backoffMs: [500, 2_000, 10_000, 30_000],
      concurrency: 8,
      parse: (data) => PlatformEvent.parse(data),
      handler: async (event, { requestId }) => {
        await fanOut(deps, event, requestId);
      },
    },
    { logger: deps.logger, inFlight: deps.inFlight },
  );
}
