import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import { checkOutboundUrl, isPrivateAddress, OutboundBlockedError } from '@platform/kit';
import { blocked, timedOut, unreachable } from './errors.ts';

/**
 * A fetch whose response body is read as a stream (server-sent events of a streamed completion),
 * under the same address policy as the kit's outboundFetch: the URL is checked, and without
 * `allowPrivateNetwork` the socket's DNS lookup refuses private addresses, so rebinding cannot
 * slip past. (outboundFetch reads whole bodies; streaming needs the response as it arrives.)
 */
type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

function guardedLookup(hostname: string, options: object, callback: LookupCallback) {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as LookupAddress[];
    if (list.some((a) => isPrivateAddress(a.address))) {
      return callback(new OutboundBlockedError(hostname) as unknown as NodeJS.ErrnoException, '');
    }
    if ((options as { all?: boolean }).all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}

const agents = new Map<boolean, Agent>();
function agentFor(allowPrivate: boolean): Agent {
  let agent = agents.get(allowPrivate);
  if (!agent) {
    agent = new Agent({
      keepAliveTimeout: 10_000,
      connect: allowPrivate ? {} : { lookup: guardedLookup as never },
    });
    agents.set(allowPrivate, agent);
  }
  return agent;
}

export async function streamingFetch(
  who: string,
  rawUrl: string,
  init: Omit<RequestInit, 'dispatcher' | 'redirect'>,
  options: { allowPrivateNetwork: boolean },
): Promise<Response> {
  let url: URL;
  try {
    url = checkOutboundUrl(rawUrl, options.allowPrivateNetwork);
  } catch (err) {
    throw blocked((err as Error).message);
  }
  try {
    return await fetch(url, {
      ...init,
      redirect: 'manual',
      dispatcher: agentFor(options.allowPrivateNetwork),
    });
  } catch (err) {
    throw streamFailure(who, err, url.host);
  }
}

/** A transport failure while connecting or reading the stream, as the typed error. */
export function streamFailure(who: string, err: unknown, host: string): Error {
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof OutboundBlockedError) return blocked(cause.message);
  const name = (err as Error).name;
  if (name === 'TimeoutError' || name === 'AbortError') return timedOut(who);
  return unreachable(who, `${host}: ${(cause as Error | undefined)?.message ?? (err as Error).message}`);
}
