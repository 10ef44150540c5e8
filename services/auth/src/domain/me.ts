import type { Identity } from '@platform/contracts';
import { NotFoundError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { organizationModel } from '../models/organization.ts';
import { userModel } from '../models/user.ts';
import { toOrganization, toUser } from './views.ts';

export async function me(deps: AuthDeps, identity: Identity) {
  const org = await organizationModel(deps.db).findById(identity.orgId).lean();
  if (!org) throw new NotFoundError('Organization not found');
  const user = identity.userId
    ? await userModel(deps.db).findOne({ _id: identity.userId, orgId: identity.orgId }).lean()
    : null;
  return {
    user: user ? toUser(user) : null,
    organization: toOrganization(org),
    role: identity.role,
    plan: org.plan,
    ...(identity.apiKeyId ? { apiKeyId: identity.apiKeyId } : {}),
  };
}

export async function getOrganization(deps: AuthDeps, orgId: string) {
  const org = await organizationModel(deps.db).findById(orgId).lean();
  if (!org) throw new NotFoundError('Organization not found');
  return toOrganization(org);
}
