import type { ApiKeyIdentity } from '@platform/contracts';
import { UnauthorizedError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { apiKeyModel, apiKeySecretModel } from '../models/api-key.ts';
import { organizationModel } from '../models/organization.ts';

const invalid = 'The API key is invalid, expired or revoked';
/** `lastUsedAt` is written at most once a minute per key, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The gateway asks with the SHA-256 of a presented key; the answer is what it may cache briefly. */
export async function verifyApiKey(deps: AuthDeps, keyHash: string): Promise<ApiKeyIdentity> {
  const now = Date.now();
  const secret = await apiKeySecretModel(deps.db).findById(keyHash).lean();
  if (!secret || (secret.validUntil && secret.validUntil.getTime() <= now))
    throw new UnauthorizedError(invalid);
  const keys = apiKeyModel(deps.db);
  const key = await keys.findOne({ _id: secret.keyId, orgId: secret.orgId }).lean();
  if (!key || (key.expiresAt && key.expiresAt.getTime() <= now)) throw new UnauthorizedError(invalid);
  const org = await organizationModel(deps.db).findById(key.orgId).lean();
  if (!org) throw new UnauthorizedError(invalid);
  if (!key.lastUsedAt || now - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    void keys
      .updateOne({ _id: key._id, orgId: key.orgId }, { $set: { lastUsedAt: new Date(now) } })
      .catch((err: Error) => deps.logger.warn({ err: err.message }, 'could not record key use'));
  }
  const ends = [secret.validUntil?.getTime(), key.expiresAt?.getTime()].filter((t): t is number => !!t);
  return {
    apiKeyId: key._id,
    orgId: key.orgId,
    role: key.role,
    plan: org.plan,
    validUntil: ends.length ? Math.min(...ends) : null,
  };
}
