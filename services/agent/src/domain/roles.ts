import type { Identity } from '@platform/contracts';
import { ForbiddenError } from '@platform/kit';

/** Viewers read; every other role may create, change, archive and invoke agents. */
export function requireWriter(identity: Identity) {
  if (identity.role === 'viewer') throw new ForbiddenError('Viewers may only read agents');
}

/** Who made a change, for version history. */
export const actorOf = (identity: Identity) => identity.userId ?? identity.apiKeyId ?? 'unknown';
