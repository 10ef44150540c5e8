import { jwtVerify } from 'jose';
import { z } from 'zod';
import { Id, Plan, Role } from '@platform/contracts';
import type { SigningKeys } from './jwks.ts';

/** The claims the gateway relies on, beyond the registered ones jose checks. */
const AccessClaims = z.object({
  sub: Id,
  org: Id,
  role: Role,
  plan: Plan,
  sid: Id,
  jti: z.string().min(1),
  iat: z.number(),
  exp: z.number(),
});
export type AccessClaims = z.infer<typeof AccessClaims>;

const CACHE_MAX = 20_000;

/**
 * Verifies access JWTs as RFC 8725 asks: only EdDSA (no `none`, no HS/RS confusion: a token whose
 * header says HS256 is refused before any key is used), explicit `typ: at+jwt`, `iss`, `aud`,
 * `exp` and `nbf` with a small skew, and the claims we use. A verified token is remembered until it
 * expires, so a client reusing it costs one map lookup; revocation is checked on every request.
 */
export function accessTokenVerifier(options: {
  keys: SigningKeys;
  issuer: string;
  audience: string;
  skewSeconds: number;
}) {
  const verified = new Map<string, AccessClaims>();
  return async (token: string): Promise<AccessClaims> => {
    const now = Date.now() / 1000;
    const hit = verified.get(token);
    if (hit) {
      if (hit.exp + options.skewSeconds > now) return hit;
      verified.delete(token);
    }
    const { payload } = await jwtVerify(token, options.keys.getKey, {
      issuer: options.issuer,
      audience: options.audience,
      algorithms: ['EdDSA'],
      typ: 'at+jwt',
      clockTolerance: options.skewSeconds,
      requiredClaims: ['exp', 'iat', 'nbf', 'sub', 'jti'],
    });
    const claims = AccessClaims.parse(payload);
    if (verified.size >= CACHE_MAX) verified.delete(verified.keys().next().value!);
    verified.set(token, claims);
    return claims;
  };
}
