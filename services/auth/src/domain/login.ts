import type { z } from 'zod';
import type { LoginBody, TokenResponse } from '@platform/contracts';
import { UnauthorizedError } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { organizationModel } from '../models/organization.ts';
import { userModel } from '../models/user.ts';
import { assertLoginAllowed, clearLoginFailures, recordLoginFailure } from './login-throttle.ts';
import { dummyHash, verifyPassword } from './passwords.ts';
import { issueTokens } from './tokens.ts';

const wrongCredentials = 'The email or password is wrong';

/**
 * Same answer, and about the same time, whether the email exists or not (an invited member without
 * a password yet is "wrong" too). Repeated failures per email or client address get 429.
 */
export async function login(
  deps: AuthDeps,
  input: z.infer<typeof LoginBody>,
  clientIp: string | undefined,
): Promise<TokenResponse> {
  await assertLoginAllowed(deps, input.email, clientIp);
  const user = await userModel(deps.db).findOne({ email: input.email }).lean();
  const usable = user && user.status !== 'invited' && user.passwordHash;
  const ok = await verifyPassword(
    input.password,
    usable ? user.passwordHash : await dummyHash(deps.config.PASSWORD_SCRYPT_N),
  );
  const org = usable && ok ? await organizationModel(deps.db).findById(user.orgId).lean() : null;
  if (!usable || !ok || !org) {
    await recordLoginFailure(deps, input.email, clientIp);
    throw new UnauthorizedError(wrongCredentials);
  }
  await clearLoginFailures(deps, input.email);
  return issueTokens(deps.db, await deps.signingKey(), deps.tokens, user, org);
}
