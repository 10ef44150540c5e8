import type { z } from 'zod';
import type { LoginBody, TokenResponse } from '@platform/contracts';
import { UnauthorizedError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { organizationModel } from '../models/organization.ts';
import { userModel } from '../models/user.ts';
import { dummyHash, verifyPassword } from './passwords.ts';
import { issueTokens } from './tokens.ts';

const wrongCredentials = 'The email or password is wrong';

/** Same answer, and about the same time, whether the email exists or not. */
export async function login(deps: AuthDeps, input: z.infer<typeof LoginBody>): Promise<TokenResponse> {
  const user = await userModel(deps.db).findOne({ email: input.email }).lean();
  const ok = await verifyPassword(
    input.password,
    user?.passwordHash ?? (await dummyHash(deps.config.PASSWORD_SCRYPT_N)),
  );
  if (!user || !ok) throw new UnauthorizedError(wrongCredentials);
  const org = await organizationModel(deps.db).findById(user.orgId).lean();
  if (!org) throw new UnauthorizedError(wrongCredentials);
  return issueTokens(deps.db, await deps.signingKey(), deps.tokens, user, org);
}
