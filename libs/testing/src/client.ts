import { signInternalToken } from '@platform/kit';
import type { Identity } from '@platform/contracts';
import { TEST_INTERNAL_SECRET } from './services.ts';

export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A small fetch wrapper for tests: JSON in, parsed JSON (or text) out, never throws on 4xx/5xx. */
export async function http<T = any>( // eslint-disable-line @typescript-eslint/no-explicit-any
  method: string,
  url: string,
  options: {
    body?: unknown;
    rawBody?: string | Buffer;
    headers?: Record<string, string>;
    token?: string;
  } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** Headers that make a direct call to a service look like it came through the gateway. */
export async function internalHeaders(
  identity: Partial<Identity> & { orgId: string },
): Promise<Record<string, string>> {
  const token = await signInternalToken(TEST_INTERNAL_SECRET, {
    role: 'owner',
    plan: 'pro',
    ...identity,
  } as Identity);
  return { 'x-internal-token': token };
}
