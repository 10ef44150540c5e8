import type { z } from 'zod';
import type { CreateApiKeyBody, Identity } from '@platform/contracts';
import { ValidationError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { apiKeyModel, apiKeySecretModel } from '../models/api-key.ts';
import { newApiKeySecret } from './api-key-secrets.ts';
import { requireCanGrant, requireManager } from './roles.ts';
import { toApiKey } from './views.ts';

/** Creates a key and returns its secret, the only time it is ever shown. */
export async function createApiKey(
  deps: AuthDeps,
  identity: Identity,
  input: z.infer<typeof CreateApiKeyBody>,
) {
  requireManager(identity);
  const role = input.role ?? 'developer';
  requireCanGrant(identity, role);
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= Date.now()) {
    throw new ValidationError([{ field: 'expiresAt', message: 'must be in the future', location: 'body' }]);
  }
  const { secret, hash, prefix, lastFour } = newApiKeySecret();
  const key = await apiKeyModel(deps.db).create({
    orgId: identity.orgId,
    name: input.name,
    role,
    prefix,
    lastFour,
    createdBy: identity.userId ?? identity.apiKeyId ?? 'unknown',
    expiresAt,
  });
  await apiKeySecretModel(deps.db).create({ _id: hash, keyId: key._id, orgId: identity.orgId });
  return { apiKey: toApiKey(key.toObject()), secret };
}
