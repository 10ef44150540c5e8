import type { Identity } from '@platform/contracts';
import { NotFoundError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { refreshTokenModel } from '../models/refresh-token.ts';
import { userModel } from '../models/user.ts';
import { requireCanManage, requireManager } from './roles.ts';
import { assertNotLastOwner } from './update-member.ts';

/** Removes a member: their refresh tokens are revoked here, their access tokens at every gateway. */
export async function deleteMember(deps: AuthDeps, identity: Identity, id: string) {
  requireManager(identity);
  const users = userModel(deps.db);
  const member = await users.findOne({ _id: id, orgId: identity.orgId }).lean();
  if (!member) throw new NotFoundError('Member not found');
  requireCanManage(identity, member.role);
  await assertNotLastOwner(deps, identity.orgId, member.role);
  await users.deleteOne({ _id: id, orgId: identity.orgId });
  await refreshTokenModel(deps.db).updateMany(
    { orgId: identity.orgId, userId: id },
    { $set: { status: 'revoked' } },
  );
  await deps.revocations.revokeUser(id);
}
