import type { Identity } from '@platform/contracts';
import { ForbiddenError } from '@platform/kit';

/** Owners, admins and developers manage connections; viewers only read. */
export function requireWriter(identity: Identity) {
  if (identity.role === 'viewer') throw new ForbiddenError('Viewers may only read connections');
}
