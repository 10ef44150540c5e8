import type { Identity } from '@platform/contracts';
import { ForbiddenError } from '@platform/kit';

/** Viewers read; owners, admins and developers create, change, delete and run workflows. */
export function requireWriter(identity: Identity) {
  if (identity.role === 'viewer') throw new ForbiddenError('Viewers may only read workflows');
}
