import { signInternalToken } from '@platform/kit';
import type { Exchange, Guard } from '../exchange.ts';

const CACHE_MAX = 20_000;

/**
 * Signs the verified identity into the short-lived internal token that the proxy sends to the
 * service; runs after the rate limiter so refused requests cost no signature. A caller's token is
 * reused for half its lifetime: the same text lets services verify it once (they cache verified
 * tokens) and spares an HMAC per request. The request id travels in X-Request-Id, not in the token.
 */
export function attachInternalToken(secret: string, ttlSeconds: number): Guard {
  const reuseMs = (ttlSeconds * 1000) / 2;
  const cache = new Map<string, { token: string; until: number }>();
  return async (x: Exchange) => {
    const id = x.identity;
    if (!id) return;
    const key = `${id.orgId}|${id.userId ?? ''}|${id.apiKeyId ?? ''}|${id.role}|${id.plan}`;
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && hit.until > now) {
      x.internalToken = hit.token;
      return;
    }
    const token = await signInternalToken(secret, id, ttlSeconds);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, { token, until: now + reuseMs });
    x.internalToken = token;
  };
}
