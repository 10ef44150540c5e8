import type { AuthDeps } from '../deps.ts';
import { organizationModel } from '../models/organization.ts';
import { userModel } from '../models/user.ts';
import { hashPassword } from './passwords.ts';

const BOOTSTRAP_ORG_ID = 'org_bootstrap';

/**
 * With BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_PASSWORD set, makes sure that account exists as the
 * owner of an organization. Idempotent and safe when several replicas start at once: the
 * organization has a fixed id and the email index is unique, so a second insert fails harmlessly.
 * An existing account is left as it is (its password is not reset).
 */
export async function ensureBootstrapAdmin(deps: AuthDeps): Promise<'created' | 'exists' | 'skipped'> {
  const { BOOTSTRAP_ADMIN_EMAIL: email, BOOTSTRAP_ADMIN_PASSWORD: password } = deps.config;
  if (!email || !password) return 'skipped';
  const users = userModel(deps.db);
  if (await users.exists({ email })) return 'exists';
  const orgs = organizationModel(deps.db);
  try {
    await orgs.create({
      _id: BOOTSTRAP_ORG_ID,
      name: deps.config.BOOTSTRAP_ORGANIZATION_NAME,
      plan: deps.config.BOOTSTRAP_PLAN,
    });
  } catch (err) {
    if ((err as { code?: number }).code !== 11000) throw err;
  }
  try {
    await users.create({
      orgId: BOOTSTRAP_ORG_ID,
      email,
      role: 'owner',
      status: 'active',
      passwordHash: await hashPassword(password, deps.config.PASSWORD_SCRYPT_N),
    });
    deps.logger.info({ email, orgId: BOOTSTRAP_ORG_ID }, 'bootstrap administrator created');
    return 'created';
  } catch (err) {
    if ((err as { code?: number }).code === 11000) return 'exists';
    throw err;
  }
}
