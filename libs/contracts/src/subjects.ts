import { z } from './zod.ts';
import type { ZodType } from 'zod';

/**
 * The typed catalog of NATS subjects. kit's helpers take these definitions, never bare strings, so a
 * subject cannot be paired with the wrong payload or reply.
 */
export interface RpcDef<Req extends ZodType = ZodType, Rep extends ZodType = ZodType> {
  kind: 'rpc';
  subject: `svc.${string}.${string}`;
  request: Req;
  reply: Rep;
}

export interface EventDef<P extends ZodType = ZodType> {
  kind: 'event';
  subject: `evt.${string}.${string}`;
  payload: P;
}

export function defineRpc<Req extends ZodType, Rep extends ZodType>(
  subject: `svc.${string}.${string}`,
  request: Req,
  reply: Rep,
): RpcDef<Req, Rep> {
  return { kind: 'rpc', subject, request, reply };
}

export function defineEvent<P extends ZodType>(subject: `evt.${string}.${string}`, payload: P): EventDef<P> {
  return { kind: 'event', subject, payload };
}

/** Kinds of a typed RPC error reply; the kit maps them back to the same typed errors on the caller. */
export const RpcErrorKind = z.enum([
  'validation',
  'not_found',
  'conflict',
  'unauthorized',
  'forbidden',
  'unavailable',
  'timeout',
  'internal',
]);
export type RpcErrorKind = z.infer<typeof RpcErrorKind>;

export const RpcError = z.object({
  kind: RpcErrorKind,
  message: z.string(),
  retryable: z.boolean().default(false),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
export type RpcError = z.infer<typeof RpcError>;

/** Every RPC reply is an envelope: `{ ok: true, data }` or `{ ok: false, error }`. */
export const RpcEnvelope = z.union([
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: RpcError }),
]);

/** JetStream streams. `EVENTS` holds every domain event (`evt.<entity>.<verb>`). */
export const streams = {
  events: { name: 'EVENTS', subjects: ['evt.>'] },
} as const;

/** Header names carried on NATS messages. */
export const natsHeaders = {
  requestId: 'X-Request-Id',
  msgId: 'Nats-Msg-Id',
  identity: 'X-Internal-Token',
} as const;
