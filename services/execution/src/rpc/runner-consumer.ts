import { executionQueue, ExecutionRunMessage } from '@platform/contracts';
import { ensureStream, startConsumer, type ConsumerHandle, type InFlight } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import type { Runner } from '../engine/runner.ts';

/**
 * The EXECUTIONS work queue and its durable consumer, shared by every replica. Redeliveries are the
 * engine's timers (delays, backoffs), so the delivery count is effectively unbounded, and up to
 * 100,000 executions may be parked at once.
 */
export async function startRunnerConsumer(
  deps: ExecutionDeps,
  runner: Runner,
  inFlight: InFlight,
): Promise<ConsumerHandle> {
  await ensureStream(deps.nc, {
    name: executionQueue.stream,
    subjects: executionQueue.subjects,
    retention: 'workqueue',
    duplicateWindowMs: 10 * 60_000,
  });
  return startConsumer(
    deps.nc,
    {
      stream: executionQueue.stream,
      durable: executionQueue.durable,
      filterSubjects: [...executionQueue.subjects],
      maxDeliver: 1_000_000,
      ackWaitMs: deps.config.EXECUTION_ACK_WAIT_MS,
      backoffMs: [1_000, 5_000, 15_000],
      concurrency: deps.config.EXECUTION_CONCURRENCY,
      maxAckPending: 100_000,
      parse: (data) => ExecutionRunMessage.parse(data),
      handler: (message, ctx) => runner.handle(message, ctx),
    },
    { logger: deps.logger, inFlight },
  );
}
