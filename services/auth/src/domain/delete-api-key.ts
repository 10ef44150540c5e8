import type { Identity } from '@platform/contracts';
import { NotFoundError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { apiKeyModel, apiKeySecretModel } from '../models/api-key.ts';
import { requireCanManage, requireManager } from './roles.ts';

/** Deletes a key and its secrets, and tells every gateway to reject it now. */
export async function deleteApiKey(deps: AuthDeps, identity: Identity, id: string) {
  requireManager(identity);
  const keys = apiKeyModel(deps.db);
  const key = await keys.findOne({ _id: id, orgId: identity.orgId }).lean();
  if (!key) throw new NotFoundError('API key not found');
  requireCanManage(identity, key.role);
  await apiKeySecretModel(deps.db).deleteMany({ orgId: identity.orgId, keyId: id });
  await keys.deleteOne({ _id: id, orgId: identity.orgId });
  await deps.revocations.revokeApiKey(id);
}
