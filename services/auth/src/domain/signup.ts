import type { z } from 'zod';
import type { SignupBody, TokenResponse } from '@platform/contracts';
import { ConflictError, ForbiddenError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { organizationModel } from '../models/organization.ts';
import { userModel } from '../models/user.ts';
import { hashPassword } from './passwords.ts';
import { issueTokens } from './tokens.ts';

/**
 * Creates an organization and its owner. The user insert is the uniqueness check (email index);
 * when it fails the organization just created is removed, so nothing half-written remains.
 */
export async function signup(deps: AuthDeps, input: z.infer<typeof SignupBody>): Promise<TokenResponse> {
  if (!deps.config.SIGNUP_ENABLED) throw new ForbiddenError('Signup is disabled on this installation');
  const users = userModel(deps.db);
  if (await users.exists({ email: input.email }))
    throw new ConflictError('An account with this email exists');
  const passwordHash = await hashPassword(input.password, deps.config.PASSWORD_SCRYPT_N);
  const org = await organizationModel(deps.db).create({
    name: input.organizationName,
    plan: deps.config.DEFAULT_PLAN,
  });
  try {
    const user = await users.create({ orgId: org._id, email: input.email, passwordHash, role: 'owner' });
    return await issueTokens(deps.db, await deps.signingKey(), deps.tokens, user.toObject(), org.toObject());
  } catch (err) {
    await organizationModel(deps.db).deleteOne({ _id: org._id });
    if ((err as { code?: number }).code === 11000)
      throw new ConflictError('An account with this email exists');
    throw err;
  }
}
