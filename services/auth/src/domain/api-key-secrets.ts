import { randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '@platform/contracts';
import { hashToken } from './tokens.ts';

/**
 * An API key secret: `ak_live_` + 32 random bytes (base64url, 43 characters). With 256 bits of
 * entropy a plain SHA-256 is a safe way to store it (nothing to brute-force), and it lets the
 * gateway look a key up by hash.
 */
export function newApiKeySecret() {
  const secret = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return {
    secret,
    hash: hashToken(secret),
    prefix: secret.slice(0, API_KEY_PREFIX.length + 4),
    lastFour: secret.slice(-4),
  };
}
