import { AppError } from '@platform/kit';
import { StepFailure } from '../engine/step-failure.ts';

/** Settles with the work, or fails at once when the signal aborts (cancel or step timeout). */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(failureOfAbort(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(failureOfAbort(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

export function failureOfAbort(signal: AbortSignal): StepFailure {
  const reason = signal.reason as Error | undefined;
  if (reason?.name === 'TimeoutError') return new StepFailure('timeout', 'The step timed out');
  return new StepFailure('cancelled', 'The execution was cancelled');
}

/** Typed errors of RPC replies (agent, integration, workflow services) → step error kinds. */
export function failureOfRemote(err: unknown, what: string): StepFailure {
  if (err instanceof StepFailure) return err;
  if (!(err instanceof AppError)) return new StepFailure('internal', `${what}: ${(err as Error).message}`);
  switch (err.kind) {
    case 'not_found':
      return new StepFailure('not_found', `${what}: ${err.message}`);
    case 'unauthorized':
    case 'forbidden':
      return new StepFailure('unauthorized', `${what}: ${err.message}`);
    case 'validation':
    case 'conflict':
      return new StepFailure('remote_error', `${what}: ${err.message}`);
    case 'timeout':
      return new StepFailure('timeout', `${what}: ${err.message}`);
    default:
      return new StepFailure('unavailable', `${what}: ${err.message}`);
  }
}
