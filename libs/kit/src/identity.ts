import { createHmac, timingSafeEqual } from 'node:crypto';
import { Identity } from '@platform/contracts';
import { UnauthorizedError } from './errors.ts';

/**
 * The gateway turns a verified access token or API key into a short-lived internal token (HS256
 * under INTERNAL_TOKEN_SECRET, 60 s) that services verify on every request; a bare identity header
 * is never trusted, so a request that reaches a service directly without this token gets 401.
 * Services verify it on every request (from a cache of verified tokens, see verifyInternalToken).
 */
export const INTERNAL_TOKEN_HEADER = 'x-internal-token';
const issuer = 'platform-gateway';
const audience = 'platform-internal';

/** The JOSE header of every internal token, encoded once. */
const internalHeader = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'internal+jwt' })).toString(
  'base64url',
);

/**
 * Signed with node:crypto's HMAC directly: WebCrypto's asynchronous sign (what jose uses) costs
 * several times more CPU for the same JWS. The gateway reuses a caller's token for half its lifetime.
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

/** Verified tokens by secret and text, until they expire: a token is checked once, not per request. */
const verifiedBySecret = new Map<string, Map<string, { identity: Identity; exp: number }>>();
const VERIFIED_MAX = 10_000;
const SKEW_SECONDS = 5;

/**
 * Checks an internal token: exactly our JOSE header (HS256, typ internal+jwt: no other algorithm
 * can be smuggled in), an HMAC that matches in constant time, issuer, audience, `exp`/`iat` within
 * 5 s of skew, and an identity that parses. The gateway reuses a token for the same caller for a
 * while, so the result is cached by the token's text until its `exp`.
 */
export async function verifyInternalToken(secret: string, token: string | undefined): Promise<Identity> {
  if (!token) throw new UnauthorizedError('This service is reached through the gateway only');
  const now = Date.now() / 1000;
  let verified = verifiedBySecret.get(secret);
  if (!verified) verifiedBySecret.set(secret, (verified = new Map()));
  const hit = verified.get(token);
  if (hit && hit.exp + SKEW_SECONDS > now) return hit.identity;
  const identity = checkInternalToken(secret, token, now);
  if (!identity) throw new UnauthorizedError('The internal identity token is invalid or expired');
  if (verified.size >= VERIFIED_MAX) verified.clear();
  verified.set(token, identity);
  return identity.identity;
}

function checkInternalToken(secret: string, token: string, now: number) {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== internalHeader) return undefined;
  const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2]!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { iss, aud, iat, exp, ...rest } = claims;
  if (iss !== issuer || aud !== audience) return undefined;
  if (typeof exp !== 'number' || exp + SKEW_SECONDS <= now) return undefined;
  if (typeof iat !== 'number' || iat - SKEW_SECONDS > now) return undefined;
  const parsed = Identity.safeParse(rest);
  return parsed.success ? { identity: parsed.data, exp } : undefined;
}
