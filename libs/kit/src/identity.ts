import { createHmac } from 'node:crypto';
import { jwtVerify } from 'jose';
import { Identity } from '@platform/contracts';
import { UnauthorizedError } from './errors.ts';

/**
 * The gateway turns a verified access token or API key into a short-lived internal token (HS256
 * under INTERNAL_TOKEN_SECRET, 60 s) that services verify on every request; a bare identity header
 * is never trusted, so a request that reaches a service directly without this token gets 401.
 */
export const INTERNAL_TOKEN_HEADER = 'x-internal-token';
const issuer = 'platform-gateway';
const audience = 'platform-internal';

const keys = new Map<string, Uint8Array>();
function keyOf(secret: string): Uint8Array {
  let key = keys.get(secret);
  if (!key) {
    key = new TextEncoder().encode(secret);
    keys.set(secret, key);
  }
  return key;
}

/** The JOSE header of every internal token, encoded once. */
const internalHeader = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'internal+jwt' })).toString(
  'base64url',
);

/**
 * Signed with node:crypto's HMAC directly: the gateway signs one token per request, and WebCrypto's
 * asynchronous sign (what jose uses) costs several times more CPU for the same JWS.
 */
export async function signInternalToken(
  secret: string,
  identity: Identity,
  ttlSeconds = 60,
): Promise<string> {
  const iat = Math.floor(Date.now() / 1000);
  const claims = { ...identity, iss: issuer, aud: audience, iat, exp: iat + ttlSeconds };
  const input = `${internalHeader}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

export async function verifyInternalToken(secret: string, token: string | undefined): Promise<Identity> {
  if (!token) throw new UnauthorizedError('This service is reached through the gateway only');
  try {
    const { payload } = await jwtVerify(token, keyOf(secret), {
      issuer,
      audience,
      algorithms: ['HS256'],
      typ: 'internal+jwt',
      clockTolerance: 5,
    });
    return Identity.parse(payload);
  } catch {
    throw new UnauthorizedError('The internal identity token is invalid or expired');
  }
}
