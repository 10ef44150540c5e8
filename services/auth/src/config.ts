import { z } from 'zod';
import { booleanFromEnv, keyRingFromEnv } from '@platform/kit';

/** Variables of the auth service beyond the base ones (PORT, NATS_URL, MONGO_URL, …). */
export const authEnv = {
  /** Its own database. */
  MONGO_DB: z.string().default('auth'),
  /** Whether POST /auth/signup creates organizations (on for local runs, off in production). */
  SIGNUP_ENABLED: booleanFromEnv.default(false),
  /** Lifetime of access tokens. */
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  /** Lifetime of refresh tokens. */
  REFRESH_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(3600)
    .default(30 * 86_400),
  /** `iss` of access tokens; gateways check it. */
  TOKEN_ISSUER: z.string().default('https://auth.platform.local'),
  /** `aud` of access tokens; gateways check it. */
  TOKEN_AUDIENCE: z.string().default('platform-api'),
  /** Plan given to new organizations. */
  DEFAULT_PLAN: z.string().default('pro'),
  /** Key ring (`kid:base64(32 bytes),…`) that encrypts the token signing keys at rest. */
  KEY_ENCRYPTION_KEYS: keyRingFromEnv,
  /** scrypt cost parameter N (power of two); lower only in tests. */
  PASSWORD_SCRYPT_N: z.coerce.number().int().min(1024).default(16384),
};
