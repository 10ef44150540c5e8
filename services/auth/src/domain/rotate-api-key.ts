import type { Identity } from '@platform/contracts';
import { NotFoundError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { apiKeyModel, apiKeySecretModel } from '../models/api-key.ts';
import { newApiKeySecret } from './api-key-secrets.ts';
import { requireCanManage, requireManager } from './roles.ts';
import { toApiKey } from './views.ts';

/**
 * Gives a key a new secret. The current secret keeps working until the grace period ends, so that
 * clients can switch without downtime; a secret from an earlier rotation stops now (one previous
 * secret at a time).
 */
export async function rotateApiKey(
  deps: AuthDeps,
  identity: Identity,
  id: string,
  gracePeriodSeconds: number | undefined,
) {
  requireManager(identity);
  const keys = apiKeyModel(deps.db);
  const key = await keys.findOne({ _id: id, orgId: identity.orgId }).lean();
  if (!key) throw new NotFoundError('API key not found');
  requireCanManage(identity, key.role);
  const now = new Date();
  const graceEndsAt = new Date(
    now.getTime() + (gracePeriodSeconds ?? deps.config.API_KEY_ROTATION_GRACE_SECONDS) * 1000,
  );
  const secrets = apiKeySecretModel(deps.db);
  await secrets.deleteMany({ orgId: identity.orgId, keyId: id, validUntil: { $ne: null } });
  await secrets.updateMany(
    { orgId: identity.orgId, keyId: id, validUntil: null },
    { $set: { validUntil: graceEndsAt } },
  );
  const { secret, hash, prefix, lastFour } = newApiKeySecret();
  await secrets.create({ _id: hash, keyId: id, orgId: identity.orgId });
  const updated = await keys
    .findOneAndUpdate(
      { _id: id, orgId: identity.orgId },
      { $set: { prefix, lastFour, previousSecretExpiresAt: graceEndsAt } },
      { new: true },
    )
    .lean();
  if (!updated) throw new NotFoundError('API key not found');
  return { apiKey: toApiKey(updated), secret };
}
