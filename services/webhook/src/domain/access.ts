import type { Identity } from '@platform/contracts';
import { ForbiddenError } from '@platform/kit';

/** Viewers read; developers, admins and owners manage webhooks. */
export function requireWriter(identity: Identity) {
  if (identity.role === 'viewer') throw new ForbiddenError('Viewers may only read webhooks');
}
