import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeadersOf } from '@nats-io/transport-node';
import type { z } from 'zod';
import { natsHeaders } from '@platform/contracts';
import { UnavailableError } from '../errors.ts';

/** A JetStream command subject and its payload schema (e.g. `sessionIngest.agent.start`). */
export interface CommandSubject<P extends z.ZodType = z.ZodType> {
  subject: string;
  payload: P;
}

/**
 * Publishes a command to a JetStream work queue at least once: the payload is validated against the
 * subject's schema and its `id` is the Nats-Msg-Id, so a retried publish within the stream's duplicate
 * window is stored once (and the consumer is idempotent beyond it).
 */
export async function publishCommand<D extends CommandSubject>(
  js: JetStreamClient,
  def: D,
  payload: z.input<D['payload']> & { id: string },
  options: { requestId?: string } = {},
): Promise<void> {
  const data = def.payload.parse(payload);
  const h = natsHeadersOf();
  if (options.requestId) h.set(natsHeaders.requestId, options.requestId);
  try {
    await js.publish(def.subject, JSON.stringify(data), { msgID: payload.id, headers: h });
  } catch (err) {
    throw new UnavailableError(`Could not publish ${def.subject}: ${(err as Error).message}`);
  }
}
