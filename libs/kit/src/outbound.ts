import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch as undiciFetch, type RequestInit, type Response } from 'undici';
import { AppError } from './errors.ts';

/**
 * Outbound HTTP for everything the platform calls on a customer's behalf (integration actions,
 * workflow http steps, webhook deliveries): private, loopback, link-local and other special
 * addresses are refused unless `allowPrivateNetwork` (OWASP API7, SSRF). The check runs on the
 * address actually connected to (inside the socket's DNS lookup), so DNS rebinding cannot slip past.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && address.toLowerCase().startsWith('::ffff:')) {
    const v4 = address.slice(7);
    if (isIP(v4) === 4) return blocked.check(v4, 'ipv4');
  }
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class OutboundBlockedError extends AppError {
  constructor(host: string) {
    super(
      400,
      'validation',
      'Address not allowed',
      `Requests to private or special addresses are refused (${host})`,
      {
        type: 'address-not-allowed',
      },
    );
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

function guardedLookup(hostname: string, options: object, callback: LookupCallback) {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new OutboundBlockedError(hostname) as unknown as NodeJS.ErrnoException, '');
    if ((options as { all?: boolean }).all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}

const agents = new Map<boolean, Agent>();
/**
 * The undici dispatcher of the outbound address policy: without `allowPrivate` its DNS lookup refuses
 * private addresses, so rebinding cannot slip past the URL check. Shared with callers that need the
 * response as a stream (outboundFetch reads whole bodies).
 */
export function outboundAgent(allowPrivate: boolean): Agent {
  let agent = agents.get(allowPrivate);
  if (!agent) {
    agent = new Agent({
      connections: 128,
      keepAliveTimeout: 10_000,
      connect: allowPrivate ? {} : { lookup: guardedLookup as never },
    });
    agents.set(allowPrivate, agent);
  }
  return agent;
}

/** Refuses URLs that are not http(s) or that name a private address literally. */
export function checkOutboundUrl(raw: string, allowPrivateNetwork: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError(400, 'validation', 'Invalid URL', `Not a valid URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError(400, 'validation', 'Invalid URL', 'Only http and https URLs are allowed');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (
    !allowPrivateNetwork &&
    (isPrivateAddress(host) || host === 'localhost' || host.endsWith('.localhost'))
  ) {
    throw new OutboundBlockedError(host);
  }
  return url;
}

export interface OutboundOptions {
  allowPrivateNetwork: boolean;
  timeoutMs?: number;
  /** Response bodies are read up to this many bytes; the rest is dropped (`truncated: true`). */
  maxResponseBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  truncated: boolean;
  durationMs: number;
}

/** Outbound failures that are worth retrying: timeouts and connection errors (not refusals). */
export class OutboundNetworkError extends AppError {
  constructor(
    message: string,
    readonly code: 'timeout' | 'network',
  ) {
    super(502, code === 'timeout' ? 'timeout' : 'unavailable', 'Outbound request failed', message);
  }
}

async function readLimited(res: Response, limit: number): Promise<{ body: string; truncated: boolean }> {
  if (!res.body) return { body: '', truncated: false };
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of res.body) {
    const buf = Buffer.from(chunk as Uint8Array);
    if (size + buf.length > limit) {
      chunks.push(buf.subarray(0, limit - size));
      truncated = true;
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  if (truncated) await res.body.cancel().catch(() => undefined);
  return { body: Buffer.concat(chunks).toString('utf8'), truncated };
}

/** fetch with the address policy, a timeout and a bounded response body. */
export async function outboundFetch(
  rawUrl: string,
  init: Omit<RequestInit, 'dispatcher' | 'signal'>,
  options: OutboundOptions,
): Promise<OutboundResponse> {
  const url = checkOutboundUrl(rawUrl, options.allowPrivateNetwork);
  const started = performance.now();
  let res: Response;
  try {
    res = await undiciFetch(url, {
      ...init,
      redirect: 'manual',
      dispatcher: outboundAgent(options.allowPrivateNetwork),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof OutboundBlockedError) throw cause;
    if ((err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError') {
      throw new OutboundNetworkError(`${url.host} did not answer in time`, 'timeout');
    }
    throw new OutboundNetworkError(
      `${url.host}: ${(cause as Error | undefined)?.message ?? (err as Error).message}`,
      'network',
    );
  }
  const { body, truncated } = await readLimited(res, options.maxResponseBytes ?? 1_048_576);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return { status: res.status, headers, body, truncated, durationMs: performance.now() - started };
}
