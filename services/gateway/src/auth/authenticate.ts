import type { ApiKeyIdentity, Identity } from '@platform/contracts';
import { AppError, ForbiddenError, UnauthorizedError, UnavailableError } from '@platform/kit';
import type { AccessClaims } from './access-tokens.ts';
import { looksLikeApiKey } from './api-keys.ts';
import type { Exchange, Guard } from '../exchange.ts';
import type { RevocationList } from './revocations.ts';

export interface Authenticators {
  isPublic: (method: string, path: string) => boolean;
  verifyAccessToken: (token: string) => Promise<AccessClaims>;
  verifyApiKey: (key: string) => Promise<ApiKeyIdentity | null>;
  revocations: RevocationList;
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The one write a viewer may make: ending their own login. */
const viewerWrites = new Set(['POST /api/v1/auth/logout']);

const invalidToken = (description: string) =>
  new UnauthorizedError(
    description,
    `Bearer realm="api", error="invalid_token", error_description="${description.replace(/"/g, "'")}"`,
  );

async function identify(auth: Authenticators, token: string): Promise<Omit<Identity, 'requestId'>> {
  if (looksLikeApiKey(token)) {
    const key = await auth.verifyApiKey(token);
    if (!key || auth.revocations.isApiKeyRevoked(key.apiKeyId)) {
      throw invalidToken('The API key is invalid, expired or revoked');
    }
    return { orgId: key.orgId, apiKeyId: key.apiKeyId, role: key.role, plan: key.plan };
  }
  let claims: AccessClaims;
  try {
    claims = await auth.verifyAccessToken(token);
  } catch {
    throw invalidToken('The access token is invalid or expired');
  }
  if (
    auth.revocations.isFamilyRevoked(claims.sid) ||
    auth.revocations.isUserTokenRevoked(claims.sub, claims.iat)
  ) {
    throw invalidToken('The access token has been revoked');
  }
  return { orgId: claims.org, userId: claims.sub, role: claims.role, plan: claims.plan };
}

/**
 * Every request but the public ones needs `Authorization: Bearer <access token or API key>`; the
 * verified caller is put on the request for the rate limiter and the internal token. Viewers may
 * only read. A missing or bad credential is a 401 with `WWW-Authenticate` (RFC 6750).
 */
export function authenticate(auth: Authenticators): Guard {
  return async (x: Exchange) => {
    if (auth.isPublic(x.method, x.path)) return;
    const header = x.req.headers.authorization;
    if (!header) throw new UnauthorizedError('Send Authorization: Bearer <access token or API key>');
    const match = /^Bearer +([^\s]+)$/i.exec(header);
    if (!match) throw invalidToken('The Authorization header must be `Bearer <token>`');
    let identity: Omit<Identity, 'requestId'>;
    try {
      if (!auth.revocations.isLoaded()) await auth.revocations.ready;
      identity = await identify(auth, match[1]!);
    } catch (err) {
      if (err instanceof AppError && err.status < 500) throw err;
      // NATS down or auth not answering: the credential could not be checked, which is not the
      // client's fault (503 with Retry-After, never a 401 that would make it drop a good key).
      throw new UnavailableError('Credentials cannot be checked right now; retry later');
    }
    if (
      identity.role === 'viewer' &&
      !safeMethods.has(x.method) &&
      !viewerWrites.has(`${x.method} ${x.path}`)
    ) {
      throw new ForbiddenError('Viewers may only read');
    }
    x.identity = identity;
  };
}
