import type { z } from 'zod';
import type { AcceptInvitationBody, TokenResponse } from '@platform/contracts';
import { UnauthorizedError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { organizationModel } from '../models/organization.ts';
import { userModel } from '../models/user.ts';
import { hashPassword } from './passwords.ts';
import { hashToken, issueTokens } from './tokens.ts';

/** An invited member sets a password with the one-time token and is logged in. */
export async function acceptInvitation(
  deps: AuthDeps,
  input: z.infer<typeof AcceptInvitationBody>,
): Promise<TokenResponse> {
  const passwordHash = await hashPassword(input.password, deps.config.PASSWORD_SCRYPT_N);
  const user = await userModel(deps.db)
    .findOneAndUpdate(
      {
        inviteTokenHash: hashToken(input.inviteToken),
        status: 'invited',
        inviteExpiresAt: { $gt: new Date() },
      },
      { $set: { status: 'active', passwordHash, inviteTokenHash: null, inviteExpiresAt: null } },
      { new: true },
    )
    .lean();
  if (!user) throw new UnauthorizedError('The invitation is invalid, used or expired');
  const org = await organizationModel(deps.db).findById(user.orgId).lean();
  if (!org) throw new UnauthorizedError('The invitation is invalid, used or expired');
  return issueTokens(deps.db, await deps.signingKey(), deps.tokens, user, org);
}
