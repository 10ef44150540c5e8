import type { Identity, PageQuery } from '@platform/contracts';
import { paginate } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { apiKeyModel } from '../models/api-key.ts';
import { toApiKey } from './views.ts';

/** Every role may read the key list (names, prefixes, dates; never a secret). */
export function listApiKeys(deps: AuthDeps, identity: Identity, page: PageQuery) {
  return paginate(apiKeyModel(deps.db), { orgId: identity.orgId }, page, toApiKey);
}
