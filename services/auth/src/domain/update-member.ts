import type { Identity, Role } from '@platform/contracts';
import { ConflictError, NotFoundError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { userModel } from '../models/user.ts';
import { requireCanGrant, requireCanManage, requireManager } from './roles.ts';
import { toMember } from './views.ts';

/** An organization always keeps at least one owner. */
export async function assertNotLastOwner(deps: AuthDeps, orgId: string, memberRole: Role) {
  if (memberRole !== 'owner') return;
  const owners = await userModel(deps.db).countDocuments({ orgId, role: 'owner', status: 'active' });
  if (owners <= 1) throw new ConflictError('The organization must keep at least one owner');
}

/**
 * Changes a member's role. Access tokens carry the role, so the member's current tokens are revoked
 * at the gateways; the next refresh issues tokens with the new role.
 */
export async function updateMember(deps: AuthDeps, identity: Identity, id: string, role: Role) {
  requireManager(identity);
  const users = userModel(deps.db);
  const member = await users.findOne({ _id: id, orgId: identity.orgId }).lean();
  if (!member) throw new NotFoundError('Member not found');
  requireCanManage(identity, member.role);
  requireCanGrant(identity, role);
  if (member.role === role) return toMember(member);
  if (role !== 'owner') await assertNotLastOwner(deps, identity.orgId, member.role);
  const updated = await users
    .findOneAndUpdate({ _id: id, orgId: identity.orgId }, { $set: { role } }, { new: true })
    .lean();
  if (!updated) throw new NotFoundError('Member not found');
  await deps.revocations.revokeUser(id);
  return toMember(updated);
}
