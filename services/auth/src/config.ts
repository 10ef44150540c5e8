import { z } from 'zod';
import { booleanFromEnv, keyRingFromEnv } from '@platform/kit';

const seconds = z.coerce.number().int().positive();
/** Compose passes unset variables as empty strings. */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** Variables of the auth service beyond the base ones (PORT, NATS_URL, MONGO_URL, …). */
export const authEnv = {
  /** Its own database. */
  MONGO_DB: z.string().default('auth'),
  /** Whether POST /auth/signup creates organizations (on for local runs, off in production). */
  SIGNUP_ENABLED: booleanFromEnv.default(false),
  /** Lifetime of access tokens. */
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  /** Lifetime of refresh tokens (each refresh gives a new one with a full lifetime). */
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
  /** How long a replica keeps using the signing key it loaded before looking for a rotated one. */
  SIGNING_KEY_CACHE_SECONDS: seconds.max(300).default(30),
  /** Failed logins for one email within the window before further attempts get 429. */
  LOGIN_MAX_FAILURES_PER_EMAIL: seconds.default(5),
  /** Failed logins from one client address within the window before further attempts get 429. */
  LOGIN_MAX_FAILURES_PER_IP: seconds.default(50),
  /** Window of the failed-login counters. */
  LOGIN_FAILURE_WINDOW_SECONDS: seconds.default(900),
  /** Default grace period of POST /api-keys/{id}/rotate. */
  API_KEY_ROTATION_GRACE_SECONDS: z.coerce.number().int().min(0).default(86_400),
  /** Lifetime of member invitations. */
  INVITATION_TTL_SECONDS: seconds.default(7 * 86_400),
  /** First administrator, created at start when both are set and the email is unknown. */
  BOOTSTRAP_ADMIN_EMAIL: optional(z.string().trim().toLowerCase().email()),
  BOOTSTRAP_ADMIN_PASSWORD: optional(z.string().min(10, 'must be at least 10 characters')),
  /** Organization and plan of the bootstrap administrator. */
  BOOTSTRAP_ORGANIZATION_NAME: z.string().default('Administrators'),
  BOOTSTRAP_PLAN: z.string().default('enterprise'),
};
