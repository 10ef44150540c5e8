import { startConsumer, type ConsumerHandle, type InFlight } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { EventEnvelope, onEvent } from '../domain/event-triggers.ts';

/** Event triggers: a durable consumer of every platform event (`evt.>`), shared by the replicas. */
export function startEventTriggerConsumer(deps: WorkflowDeps, inFlight: InFlight): Promise<ConsumerHandle> {
  return startConsumer(
    deps.nc,
    {
      stream: 'EVENTS',
      durable: 'workflow-event-triggers',
      filterSubjects: ['evt.>'],
      maxDeliver: 10,
      concurrency: 8,
      parse: (data) => EventEnvelope.parse(data),
      handler: async (event, { requestId }) => {
        await onEvent(deps, event, requestId);
      },
    },
    { logger: deps.logger, inFlight },
  );
}
