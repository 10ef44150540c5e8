import { fetch, type RequestInit, type Response } from 'undici';
import { checkOutboundUrl, OutboundBlockedError, outboundAgent } from '@platform/kit';
import { blocked, timedOut, unreachable } from './errors.ts';

/**
 * A fetch whose response body is read as a stream (server-sent events of a streamed completion),
 * under the kit's outbound address policy: the URL is checked, and the kit's dispatcher refuses
 * private addresses at DNS lookup unless `allowPrivateNetwork`.
 */
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
      dispatcher: outboundAgent(options.allowPrivateNetwork),
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
