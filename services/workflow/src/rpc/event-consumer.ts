import type { JetStreamManager } from '@nats-io/jetstream';
import { defineDomainEvent, streams, z } from '@platform/contracts';
import {
  consumerFilterSubjects,
  setConsumerFilter,
  startConsumer,
  type ConsumerHandle,
  type InFlight,
} from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { EventEnvelope, onEvent } from '../domain/event-triggers.ts';

export const eventTriggerConsumer = { stream: streams.events.name, durable: 'workflow-event-triggers' };

/**
 * The subject an event type is published on, from the contracts' own definition of a domain event
 * (`defineDomainEvent`, which every publisher's EventDef comes from): never written out twice.
 */
export function eventSubjectOf(type: string): string {
  return defineDomainEvent(type as `${string}.${string}`, z.unknown()).subject;
}

/** The consumer's filter for these event types (a placeholder that matches nothing when none). */
export function eventTriggerFilter(eventTypes: Iterable<string>): string[] {
  return consumerFilterSubjects([...eventTypes].map(eventSubjectOf));
}

/**
 * Event triggers: a durable consumer of the EVENTS stream shared by the replicas, filtered to the
 * subjects of the event types active triggers use (`eventTypes`, from the database's full list), so
 * events no trigger waits for are never delivered. The filter then follows the triggers through
 * `followEventTriggerTypes`.
 */
export function startEventTriggerConsumer(
  deps: WorkflowDeps,
  inFlight: InFlight,
  eventTypes: Iterable<string>,
): Promise<ConsumerHandle> {
  return startConsumer(
    deps.nc,
    {
      ...eventTriggerConsumer,
      filterSubjects: eventTriggerFilter(eventTypes),
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

/** Sets the consumer's filter to the subjects of `eventTypes` (the full list, never a delta). */
export async function followEventTriggerTypes(
  deps: Pick<WorkflowDeps, 'logger'>,
  jsm: JetStreamManager,
  eventTypes: Iterable<string>,
): Promise<void> {
  const change = await setConsumerFilter(
    jsm,
    eventTriggerConsumer.stream,
    eventTriggerConsumer.durable,
    [...eventTypes].map(eventSubjectOf),
  );
  if (change.updated) {
    deps.logger.info(
      { consumer: eventTriggerConsumer.durable, from: change.previous, to: change.filterSubjects },
      'event trigger filter updated',
    );
  }
}
