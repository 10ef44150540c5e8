import type { Identity, PageQuery } from '@platform/contracts';
import { paginate } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { userModel } from '../models/user.ts';
import { toMember } from './views.ts';

/** Every role may read the member list of its own organization. */
export function listMembers(deps: AuthDeps, identity: Identity, page: PageQuery) {
  return paginate(userModel(deps.db), { orgId: identity.orgId }, page, toMember);
}
