import type { RetryPolicy, StepErrorKind } from '@platform/contracts';

/** Defaults like Temporal's: 1 s, ×2, capped at 100× the first interval; 3 attempts. */
export const retryDefaults = {
  maxAttempts: 3,
  initialIntervalMs: 1_000,
  backoffCoefficient: 2,
  jitter: 0.1,
  nonRetryable: [
    'http_client_error',
    'address_not_allowed',
    'not_found',
    'unauthorized',
    'remote_error',
    'child_failed',
  ] as StepErrorKind[],
};

/** Kinds that fail the same way every time, whatever the policy says. */
const neverRetried: StepErrorKind[] = ['expression', 'invalid_settings', 'output_too_large', 'cancelled'];

export function shouldRetry(policy: RetryPolicy | undefined, kind: StepErrorKind, attempts: number): boolean {
  if (neverRetried.includes(kind)) return false;
  if (attempts >= (policy?.maxAttempts ?? retryDefaults.maxAttempts)) return false;
  return !(policy?.nonRetryable ?? retryDefaults.nonRetryable).includes(kind);
}

/** Delay before attempt `attempts + 1`: initial × coefficient^(attempts-1), capped, ± jitter. */
export function backoffMs(policy: RetryPolicy | undefined, attempts: number, random = Math.random): number {
  const initial = policy?.initialIntervalMs ?? retryDefaults.initialIntervalMs;
  const coefficient = policy?.backoffCoefficient ?? retryDefaults.backoffCoefficient;
  const max = policy?.maxIntervalMs ?? initial * 100;
  const jitter = policy?.jitter ?? retryDefaults.jitter;
  const base = Math.min(initial * coefficient ** Math.max(0, attempts - 1), max);
  return Math.max(0, Math.round(base * (1 + jitter * (2 * random() - 1))));
}
