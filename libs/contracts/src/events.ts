import { z } from './zod.ts';
import type { ZodType } from 'zod';
import { defineEvent } from './subjects.ts';

/**
 * Every domain event has the same envelope: id (also the JetStream `Nats-Msg-Id`, so a republished
 * event is de-duplicated), type (`session.started`), createdAt, orgId and a data object.
 */
export function eventEnvelope<T extends ZodType>(type: string, data: T) {
  return z.object({
    id: z.string().min(1),
    type: z.literal(type),
    createdAt: z.string().datetime(),
    orgId: z.string().min(1),
    data,
  });
}

export function defineDomainEvent<T extends ZodType>(type: `${string}.${string}`, data: T) {
  return defineEvent(`evt.${type}`, eventEnvelope(type, data));
}
