import type { JetStreamManager } from '@nats-io/jetstream';

/**
 * The filter of a consumer that should receive nothing. JetStream reads an empty filter as "every
 * subject of the stream", so an empty list is stored as this placeholder instead. Nothing is ever
 * published on it: event subjects are `evt.<entity>.<verb>` (two lower-case words), and `_none` is
 * neither an entity nor followed by a verb. It lies inside the EVENTS stream's `evt.>`.
 */
export const NO_MESSAGES_SUBJECT = 'evt._none';

/**
 * The filter subjects a consumer of `subjects` should have: unique and sorted (so two lists with
 * the same subjects compare equal), or the placeholder when there are none.
 */
export function consumerFilterSubjects(
  subjects: Iterable<string>,
  placeholder: string = NO_MESSAGES_SUBJECT,
): string[] {
  const unique = [...new Set(subjects)].sort();
  return unique.length > 0 ? unique : [placeholder];
}

export interface ConsumerFilterChange {
  /** Whether an update was sent (false: the consumer already had exactly these subjects). */
  updated: boolean;
  /** The filter before the call. */
  previous: string[];
  /** The filter now. */
  filterSubjects: string[];
}

/**
 * Makes a durable consumer's `filter_subjects` exactly `subjects` (the placeholder when empty).
 * JetStream updates the filter of an existing consumer in place: its position, pending acks and
 * redelivery timers stay, and waiting pulls see the new filter at once. Reads the consumer first and
 * sends an update only when the set differs, so the same list again costs one info request.
 *
 * Pass the full list every time, computed from the source of truth, never a delta: callers on
 * several replicas may race, and the last full list written wins until the next call corrects it.
 * A subject newly added makes the consumer go through that subject's messages stored after its
 * position (the last message it was given), so they may arrive late rather than never.
 */
export async function setConsumerFilter(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
  subjects: Iterable<string>,
  options: { placeholder?: string } = {},
): Promise<ConsumerFilterChange> {
  const wanted = consumerFilterSubjects(subjects, options.placeholder);
  const { config } = await jsm.consumers.info(stream, durable);
  const previous = config.filter_subjects?.length
    ? [...config.filter_subjects]
    : config.filter_subject
      ? [config.filter_subject]
      : [];
  const same = previous.length === wanted.length && [...previous].sort().every((s, i) => s === wanted[i]);
  if (same) return { updated: false, previous, filterSubjects: wanted };
  // filter_subject and filter_subjects are exclusive: clear the single form when switching.
  await jsm.consumers.update(stream, durable, { filter_subjects: wanted, filter_subject: undefined });
  return { updated: true, previous, filterSubjects: wanted };
}
