import type { Identity } from '@platform/contracts';
import { ForbiddenError } from '@platform/kit';

/** Viewers read; every other role may retry and cancel. */
export function requireWriter(identity: Identity) {
  if (identity.role === 'viewer') throw new ForbiddenError('Viewers may only read executions');
}
