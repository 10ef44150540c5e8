import type { RpcErrorKind } from '@platform/contracts';
import { AppError } from '@platform/kit';

/**
 * Typed failures of integration actions. The RPC kind carries the retry decision (the kit answers
 * `retryable: true` for `unavailable` and `timeout` only): 429, 5xx, network errors and timeouts are
 * retryable; rejected credentials and other 4xx are permanent. `reason` says whether the failure is
 * the connection's fault (the connection then turns `failing`).
 */
export type FailureReason =
  | 'credentials' // the third party refused the credentials (401/403, invalid_auth…)
  | 'rejected' // the third party refused this call's input (other 4xx)
  | 'rate_limited' // 429 or the API's own rate-limit answer
  | 'upstream' // 5xx
  | 'network' // could not connect, reset, DNS
  | 'timeout' // no answer before the deadline
  | 'blocked'; // the address policy refused the target

export class ThirdPartyError extends AppError {
  constructor(
    kind: RpcErrorKind,
    status: number,
    message: string,
    readonly reason: FailureReason,
    extra: { headers?: Record<string, string> } = {},
  ) {
    super(status, kind, 'Integration call failed', message, extra);
  }

  /** Failures that say something about the connection itself rather than about one call's input. */
  get isConnectionFault(): boolean {
    return this.reason !== 'rejected' && this.reason !== 'rate_limited';
  }
}

export function credentialsRejected(who: string, detail?: string) {
  return new ThirdPartyError(
    'unauthorized',
    502,
    `${who} rejected the connection's credentials${detail ? ` (${detail})` : ''}`,
    'credentials',
  );
}

export function callRejected(who: string, status: number | undefined, detail?: string) {
  const code = status ? ` with ${status}` : '';
  return new ThirdPartyError(
    'validation',
    400,
    `${who} refused the request${code}${detail ? `: ${detail}` : ''}`,
    'rejected',
  );
}

export function rateLimited(who: string, retryAfterSeconds?: number) {
  const after = retryAfterSeconds && retryAfterSeconds > 0 ? Math.ceil(retryAfterSeconds) : undefined;
  return new ThirdPartyError(
    'unavailable',
    503,
    `${who} is rate limiting this connection${after ? `; retry after ${after} s` : ''}`,
    'rate_limited',
    after ? { headers: { 'Retry-After': String(after) } } : {},
  );
}

export function upstreamFailed(who: string, status: number | undefined, detail?: string) {
  return new ThirdPartyError(
    'unavailable',
    502,
    `${who} failed${status ? ` with ${status}` : ''}${detail ? `: ${detail}` : ''}`,
    'upstream',
  );
}

export function unreachable(who: string, detail: string) {
  return new ThirdPartyError('unavailable', 502, `${who} is unreachable: ${detail}`, 'network');
}

export function timedOut(who: string) {
  return new ThirdPartyError('timeout', 504, `${who} did not answer before the action's deadline`, 'timeout');
}

export function blocked(message: string) {
  return new ThirdPartyError('validation', 400, message, 'blocked');
}

/** The usual HTTP status → failure mapping; `detail` is the API's own error text. */
export function failureForStatus(
  who: string,
  status: number,
  detail?: string,
  retryAfterSeconds?: number,
): ThirdPartyError {
  if (status === 401 || status === 403) return credentialsRejected(who, detail);
  if (status === 429) return rateLimited(who, retryAfterSeconds);
  if (status >= 500) return upstreamFailed(who, status, detail);
  return callRejected(who, status, detail);
}

/** Replaces every credential value that appears in a text (errors must never carry secrets). */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)]))
      out = out.split(form).join('[redacted]');
  }
  return out;
}

/** Every string found in a credentials object (the values `redact` hides). */
export function secretStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(secretStrings);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, v]) => (key === 'authKind' ? [] : secretStrings(v)));
  }
  return [];
}
