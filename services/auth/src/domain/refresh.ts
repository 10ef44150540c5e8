import type { TokenResponse } from '@platform/contracts';
import { UnauthorizedError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { organizationModel } from '../models/organization.ts';
import { refreshTokenModel } from '../models/refresh-token.ts';
import { userModel } from '../models/user.ts';
import { hashToken, issueTokens } from './tokens.ts';

const invalid = 'The refresh token is invalid, expired or revoked';

/** Revokes every refresh token of a family and, through the gateways, its access tokens. */
export async function revokeFamily(deps: AuthDeps, orgId: string, familyId: string) {
  await refreshTokenModel(deps.db).updateMany(
    { orgId, familyId, status: { $ne: 'revoked' } },
    { $set: { status: 'revoked' } },
  );
  await deps.revocations.revokeFamily(familyId);
}

/**
 * Rotation: the presented token is marked `rotated` (atomically, so two concurrent uses cannot both
 * win) and a new one of the same family is issued. A token presented again after its rotation means
 * it leaked or a client is replaying it: the whole family is revoked (RFC 9700 §4.14.2).
 */
export async function refresh(deps: AuthDeps, refreshToken: string): Promise<TokenResponse> {
  const tokens = refreshTokenModel(deps.db);
  const hash = hashToken(refreshToken);
  const current = await tokens.findOneAndUpdate(
    { _id: hash, status: 'active', expiresAt: { $gt: new Date() } },
    { $set: { status: 'rotated' } },
  );
  if (!current) {
    const known = await tokens.findById(hash).lean();
    if (known?.status === 'rotated') {
      deps.logger.warn(
        { familyId: known.familyId, orgId: known.orgId },
        'refresh token reused: family revoked',
      );
      await revokeFamily(deps, known.orgId, known.familyId);
    }
    throw new UnauthorizedError(invalid);
  }
  const user = await userModel(deps.db).findOne({ _id: current.userId, orgId: current.orgId }).lean();
  const org = user ? await organizationModel(deps.db).findById(user.orgId).lean() : null;
  if (!user || !org || user.status !== 'active') throw new UnauthorizedError(invalid);
  return issueTokens(deps.db, await deps.signingKey(), deps.tokens, user, org, current.familyId);
}
