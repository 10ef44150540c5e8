/**
 * What follows an attempt. 2xx: delivered. 410 Gone: the receiver asks us to stop, so the endpoint is
 * disabled and the delivery ends. Anything else (other statuses, timeouts, refused connections,
 * refused addresses) is retried on the schedule; 429 and 503 wait for their Retry-After when given.
 */
export type Outcome =
  { kind: 'succeeded' } | { kind: 'gone' } | { kind: 'retry'; delayMs: number } | { kind: 'exhausted' };

export interface RetrySettings {
  /** Delays between attempts after the first; entries + 1 = attempts per round. */
  schedule: number[];
  jitter: number;
  maxRetryAfterMs: number;
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function decide(
  settings: RetrySettings,
  result: { statusCode: number | null; retryAfter?: string },
  /** 0 for the first attempt of the current round. */
  positionInRound: number,
  random = Math.random,
): Outcome {
  const status = result.statusCode;
  if (status !== null && status >= 200 && status < 300) return { kind: 'succeeded' };
  if (status === 410) return { kind: 'gone' };
  const scheduled = settings.schedule[positionInRound];
  if (scheduled === undefined) return { kind: 'exhausted' };
  const retryAfter = status === 429 || status === 503 ? parseRetryAfter(result.retryAfter) : undefined;
  if (retryAfter !== undefined)
    return { kind: 'retry', delayMs: Math.min(retryAfter, settings.maxRetryAfterMs) };
  const spread = 1 + (random() * 2 - 1) * settings.jitter;
  return { kind: 'retry', delayMs: Math.max(0, Math.round(scheduled * spread)) };
}
