import { SignJWT } from 'jose';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { TokenResponse } from '@platform/contracts';
import { refreshTokenModel } from '../models/refresh-token.ts';
import type { OrganizationDoc } from '../models/organization.ts';
import type { UserDoc } from '../models/user.ts';
import type { ActiveSigningKey } from './signing-keys.ts';
import { toOrganization, toUser } from './views.ts';

export interface TokenSettings {
  issuer: string;
  audience: string;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  /** How long a retired signing key stays in the JWKS: every token it signed has expired by then. */
  keyRetentionMs: number;
}

export const REFRESH_TOKEN_PREFIX = 'rt_';

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** An access JWT (RFC 9068 `at+jwt`, EdDSA, `kid`) carrying org, role and plan for the gateway. */
export async function signAccessToken(
  key: ActiveSigningKey,
  settings: TokenSettings,
  claims: { userId: string; orgId: string; role: string; plan: string; familyId: string },
): Promise<string> {
  return new SignJWT({ org: claims.orgId, role: claims.role, plan: claims.plan, sid: claims.familyId })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'at+jwt' })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(claims.userId)
    .setJti(randomUUID())
    .setIssuedAt()
    .setNotBefore('0s')
    .setExpirationTime(`${settings.accessTtlSeconds}s`)
    .sign(key.privateKey);
}

/** Stores a new refresh token of a family (a new family at login) and returns it in clear once. */
export async function createRefreshToken(
  conn: Connection,
  settings: TokenSettings,
  user: { _id: string; orgId: string },
  familyId: string,
): Promise<string> {
  const token = REFRESH_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  await refreshTokenModel(conn).create({
    _id: hashToken(token),
    orgId: user.orgId,
    userId: user._id,
    familyId,
    status: 'active',
    expiresAt: new Date(Date.now() + settings.refreshTtlSeconds * 1000),
  });
  return token;
}

/** The login/signup answer: access and refresh tokens of a new token family. */
export async function issueTokens(
  conn: Connection,
  key: ActiveSigningKey,
  settings: TokenSettings,
  user: UserDoc,
  org: OrganizationDoc,
  familyId: string = randomUUID(),
): Promise<TokenResponse> {
  const accessToken = await signAccessToken(key, settings, {
    userId: user._id,
    orgId: org._id,
    role: user.role,
    plan: org.plan,
    familyId,
  });
  const refreshToken = await createRefreshToken(conn, settings, user, familyId);
  return {
    accessToken,
    tokenType: 'Bearer',
    expiresIn: settings.accessTtlSeconds,
    refreshToken,
    refreshExpiresIn: settings.refreshTtlSeconds,
    user: toUser(user),
    organization: toOrganization(org),
  };
}
