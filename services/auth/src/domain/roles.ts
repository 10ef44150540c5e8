import type { Identity, Role } from '@platform/contracts';
import { ForbiddenError } from '@platform/kit';

const rank: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

/** Owners and admins manage members and API keys. */
export function requireManager(identity: Identity) {
  if (rank[identity.role] < rank.admin) {
    throw new ForbiddenError('Only owners and admins manage members and API keys');
  }
}

/** Nobody grants a role above their own (an admin cannot make owners). */
export function requireCanGrant(identity: Identity, role: Role) {
  if (rank[role] > rank[identity.role]) {
    throw new ForbiddenError(`Your role (${identity.role}) cannot grant the role ${role}`);
  }
}

/** Admins may not change or remove owners; owners may change anybody. */
export function requireCanManage(identity: Identity, targetRole: Role) {
  if (rank[targetRole] > rank[identity.role]) {
    throw new ForbiddenError(`Your role (${identity.role}) cannot change a member who is ${targetRole}`);
  }
}
