import type { Logger } from '@platform/kit';
import {
  ProviderError,
  type CallOptions,
  type ModelProviderClient,
  type ModelRequest,
  type ModelResult,
} from './types.ts';

export interface RetryPolicy {
  maxAttempts: number;
  backoffMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Calls the model, trying again with exponential backoff (and jitter) after a retryable failure
 * (timeout, 429, 5xx, network). A streamed attempt that already sent text is not repeated: the client
 * has seen part of an answer that a new attempt would not continue.
 */
export async function completeWithRetry(
  provider: ModelProviderClient,
  request: ModelRequest,
  options: CallOptions & { policy: RetryPolicy; log: Logger },
): Promise<ModelResult & { attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    let streamed = false;
    const onDelta = options.onDelta
      ? (text: string) => {
          streamed = true;
          options.onDelta!(text);
        }
      : undefined;
    try {
      const result = await provider.complete(request, { onDelta });
      return { ...result, attempts: attempt };
    } catch (err) {
      const error =
        err instanceof ProviderError ? err : new ProviderError((err as Error).message, false, 'rejected');
      if (!error.retryable || streamed || attempt >= options.policy.maxAttempts) throw error;
      const delay = options.policy.backoffMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
      options.log.warn(
        { err: error.message, attempt, delayMs: Math.round(delay) },
        'model call failed, retrying',
      );
      await sleep(delay);
    }
  }
}
