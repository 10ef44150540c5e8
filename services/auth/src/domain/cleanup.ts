import type { AuthDeps } from '../deps.ts';
import { apiKeySecretModel } from '../models/api-key.ts';
import { loginAttemptModel } from '../models/login-attempt.ts';
import { refreshTokenModel } from '../models/refresh-token.ts';

/**
 * Deletes what has expired (no TTL indexes on FerretDB): refresh tokens, ended login-failure windows,
 * API key secrets past their grace period. Every read checks expiry anyway; this only frees space.
 */
export async function cleanupExpired(deps: AuthDeps) {
  const now = new Date();
  await Promise.all([
    refreshTokenModel(deps.db).deleteMany({ expiresAt: { $lt: now } }),
    loginAttemptModel(deps.db).deleteMany({ windowEndsAt: { $lt: now } }),
    apiKeySecretModel(deps.db).deleteMany({ validUntil: { $lt: now } }),
  ]);
}
