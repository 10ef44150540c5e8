import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { CreateMemberBody, Identity } from '@platform/contracts';
import { ConflictError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { userModel } from '../models/user.ts';
import { hashPassword } from './passwords.ts';
import { requireCanGrant, requireManager } from './roles.ts';
import { hashToken } from './tokens.ts';
import { toMember } from './views.ts';

export const INVITE_TOKEN_PREFIX = 'inv_';

/**
 * Adds a member with a password, or invites one: an invited member gets a one-time token (returned
 * here once, stored hashed) to set a password with POST /auth/invitations/accept.
 */
export async function createMember(
  deps: AuthDeps,
  identity: Identity,
  input: z.infer<typeof CreateMemberBody>,
) {
  requireManager(identity);
  requireCanGrant(identity, input.role);
  const users = userModel(deps.db);
  if (await users.exists({ email: input.email }))
    throw new ConflictError('An account with this email exists');
  const inviteToken = input.invite ? INVITE_TOKEN_PREFIX + randomBytes(32).toString('base64url') : undefined;
  const inviteExpiresAt = inviteToken
    ? new Date(Date.now() + deps.config.INVITATION_TTL_SECONDS * 1000)
    : undefined;
  try {
    const user = await users.create({
      orgId: identity.orgId,
      email: input.email,
      role: input.role,
      status: inviteToken ? 'invited' : 'active',
      passwordHash: input.password ? await hashPassword(input.password, deps.config.PASSWORD_SCRYPT_N) : '',
      inviteTokenHash: inviteToken ? hashToken(inviteToken) : null,
      inviteExpiresAt: inviteExpiresAt ?? null,
    });
    return {
      ...toMember(user.toObject()),
      ...(inviteToken ? { inviteToken, inviteExpiresAt: inviteExpiresAt!.toISOString() } : {}),
    };
  } catch (err) {
    if ((err as { code?: number }).code === 11000)
      throw new ConflictError('An account with this email exists');
    throw err;
  }
}
