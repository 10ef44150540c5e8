import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { API_KEY_PREFIX, authRpc, type ApiKeyIdentity } from '@platform/contracts';
import { AppError, rpcRequest } from '@platform/kit';

/** `ak_live_` + 43 base64url characters (32 random bytes). */
const shape = new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{43}$`);
const CACHE_MAX = 20_000;

export const looksLikeApiKey = (token: string) => token.startsWith(API_KEY_PREFIX);

/**
 * Verifies API keys with the auth service (`svc.auth.verify-api-key`, sending only the SHA-256 of
 * the key) and remembers each answer, valid or not, for `cacheMs` (at most a few seconds), so that
 * a deleted key or an ended grace period is refused everywhere within that time. Concurrent
 * requests with the same key share one question.
 */
export function apiKeyVerifier(nc: NatsConnection, cacheMs: number) {
  const cache = new Map<string, { result: ApiKeyIdentity | null; at: number }>();
  const pending = new Map<string, Promise<ApiKeyIdentity | null>>();

  const ask = async (hash: string) => {
    try {
      return await rpcRequest(nc, authRpc.verifyApiKey, { keyHash: hash }, { timeoutMs: 2_000 });
    } catch (err) {
      if (err instanceof AppError && err.status === 401) return null;
      throw err;
    }
  };

  return async (key: string): Promise<ApiKeyIdentity | null> => {
    if (!shape.test(key)) return null;
    const hash = createHash('sha256').update(key).digest('hex');
    const now = Date.now();
    const hit = cache.get(hash);
    let result: ApiKeyIdentity | null;
    if (hit && now - hit.at < cacheMs) {
      result = hit.result;
    } else {
      let question = pending.get(hash);
      if (!question) {
        question = ask(hash).finally(() => pending.delete(hash));
        pending.set(hash, question);
      }
      result = await question;
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(hash, { result, at: now });
    }
    if (result?.validUntil && result.validUntil <= Date.now()) return null;
    return result;
  };
}
