import {
  headers as natsHeadersOf,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { natsHeaders, RpcEnvelope, type RpcDef, type RpcError } from '@platform/contracts';
import type { Logger } from '../logger.ts';
import {
  AppError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  TimeoutError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} from '../errors.ts';
import { toFieldErrors } from '../http/validate.ts';
import type { InFlight } from './in-flight.ts';

const codec = {
  encode: (v: unknown) => JSON.stringify(v),
  decode: (m: Msg) => JSON.parse(m.string()) as unknown,
};

function fromRpcError(error: RpcError): AppError {
  switch (error.kind) {
    case 'validation':
      return new ValidationError(error.errors ?? [], error.message);
    case 'not_found':
      return new NotFoundError(error.message);
    case 'conflict':
      return new ConflictError(error.message);
    case 'unauthorized':
      return new UnauthorizedError(error.message);
    case 'forbidden':
      return new ForbiddenError(error.message);
    case 'timeout':
      return new TimeoutError(error.message);
    case 'unavailable':
      return new UnavailableError(error.message);
    default:
      return new AppError(502, 'internal', 'Upstream error', error.message);
  }
}

export interface RequestOptions {
  timeoutMs?: number;
  requestId?: string;
}

/** Typed request/reply: the payload and the reply are validated against the subject's schemas. */
export async function rpcRequest<D extends RpcDef>(
  nc: NatsConnection,
  def: D,
  payload: z.input<D['request']>,
  options: RequestOptions = {},
): Promise<z.infer<D['reply']>> {
  const data = def.request.parse(payload);
  const h = natsHeadersOf();
  h.set(natsHeaders.requestId, options.requestId ?? randomUUID());
  let reply: Msg;
  try {
    reply = await nc.request(def.subject, codec.encode(data), {
      timeout: options.timeoutMs ?? 5_000,
      headers: h,
    });
  } catch (err) {
    const e = err as Error & { isNoResponders?: () => boolean };
    if (e.name === 'TimeoutError') throw new TimeoutError(`${def.subject} did not answer in time`);
    if (typeof e.isNoResponders === 'function' && e.isNoResponders())
      throw new UnavailableError(`No service answers ${def.subject}`);
    throw new UnavailableError(`Messaging is unavailable (${e.message})`);
  }
  const envelope = RpcEnvelope.parse(codec.decode(reply));
  if (!envelope.ok) throw fromRpcError(envelope.error);
  return def.reply.parse(envelope.data) as z.infer<D['reply']>;
}

export interface RpcContext {
  requestId: string;
  log: Logger;
}

/**
 * Serves one RPC subject in the service's queue group. Bad payloads get a typed validation reply,
 * typed errors keep their kind, anything else is logged and answered as `internal`.
 */
export function serveRpc<D extends RpcDef>(
  nc: NatsConnection,
  def: D,
  handler: (payload: z.infer<D['request']>, ctx: RpcContext) => Promise<z.input<D['reply']>>,
  options: { queue: string; logger: Logger; inFlight?: InFlight },
): Subscription {
  const respond = (msg: Msg, body: unknown) => {
    if (msg.reply) msg.respond(codec.encode(body));
  };
  const handle = async (msg: Msg) => {
    const requestId = msg.headers?.get(natsHeaders.requestId) || randomUUID();
    const log = options.logger.child({ requestId, subject: def.subject });
    let input: unknown;
    try {
      input = codec.decode(msg);
    } catch {
      return respond(msg, { ok: false, error: { kind: 'validation', message: 'payload is not JSON' } });
    }
    const parsed = def.request.safeParse(input);
    if (!parsed.success) {
      const errors = toFieldErrors(parsed.error.issues).map(({ field, message }) => ({ field, message }));
      return respond(msg, { ok: false, error: { kind: 'validation', message: 'invalid payload', errors } });
    }
    try {
      const data = def.reply.parse(await handler(parsed.data as z.infer<D['request']>, { requestId, log }));
      respond(msg, { ok: true, data });
    } catch (err) {
      if (err instanceof AppError) {
        const errors = err.extra.errors?.map(({ field, message }) => ({ field, message }));
        const retryable = err.kind === 'unavailable' || err.kind === 'timeout';
        respond(msg, { ok: false, error: { kind: err.kind, message: err.message, retryable, errors } });
      } else {
        log.error({ err }, 'rpc handler failed');
        respond(msg, { ok: false, error: { kind: 'internal', message: 'internal error', retryable: true } });
      }
    }
  };
  return nc.subscribe(def.subject, {
    queue: options.queue,
    callback: (err, msg) => {
      if (err)
        return options.logger.warn({ err: err.message, subject: def.subject }, 'rpc subscription error');
      void (options.inFlight ? options.inFlight.run(() => handle(msg)) : handle(msg));
    },
  });
}
