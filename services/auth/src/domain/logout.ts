import { createLocalJWKSet, jwtVerify } from 'jose';
import type { Identity } from '@platform/contracts';
import { UnauthorizedError, ValidationError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { revokeFamily } from './refresh.ts';
import { publicKeys } from './signing-keys.ts';

/**
 * Ends the caller's login: its refresh-token family is revoked here and its access tokens (which
 * carry the family as `sid`) at every gateway. The gateway has verified the bearer token already;
 * the family id is read from that same token, verified again with our own keys.
 */
export async function logout(deps: AuthDeps, identity: Identity, authorization: string | undefined) {
  if (identity.apiKeyId) {
    throw new ValidationError(
      [{ field: 'authorization', message: 'is an API key', location: 'header' }],
      'Logout ends a login; revoke an API key with DELETE /api/v1/api-keys/{id}',
    );
  }
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!token) throw new UnauthorizedError('An access token is required');
  const keys = createLocalJWKSet(await publicKeys(deps.db, deps.tokens.keyRetentionMs));
  let sid: unknown;
  try {
    const { payload } = await jwtVerify(token, keys, {
      issuer: deps.tokens.issuer,
      audience: deps.tokens.audience,
      algorithms: ['EdDSA'],
      typ: 'at+jwt',
      clockTolerance: 60,
    });
    sid = payload.sid;
    if (payload.org !== identity.orgId) throw new Error('organization mismatch');
  } catch {
    throw new UnauthorizedError('The access token is invalid');
  }
  if (typeof sid !== 'string') throw new UnauthorizedError('The access token has no session');
  await revokeFamily(deps, identity.orgId, sid);
}
