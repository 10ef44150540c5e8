import { z } from './zod.ts';
import { defineRoute } from './http.ts';
import { defineRpc } from './subjects.ts';
import { Id, IdParams, PageQuery, pageOf, Plan, Role } from './common.ts';

const Email = z.string().trim().toLowerCase().email().max(254);
const Password = z.string().min(10, 'must be at least 10 characters').max(256);

export const Organization = z
  .object({ id: Id, name: z.string(), plan: Plan, createdAt: z.string() })
  .openapi('Organization');
export type Organization = z.infer<typeof Organization>;

export const User = z.object({ id: Id, email: z.string(), createdAt: z.string() }).openapi('User');
export type User = z.infer<typeof User>;

export const SignupBody = z
  .object({ organizationName: z.string().trim().min(1).max(120), email: Email, password: Password })
  .strict();
export const LoginBody = z.object({ email: Email, password: z.string().min(1).max(256) }).strict();
export const RefreshBody = z.object({ refreshToken: z.string().min(1).max(512) }).strict();
export const AcceptInvitationBody = z
  .object({ inviteToken: z.string().min(1).max(512), password: Password })
  .strict();

export const TokenResponse = z
  .object({
    accessToken: z.string(),
    tokenType: z.literal('Bearer'),
    expiresIn: z.number().int().openapi({ description: 'Seconds until the access token expires' }),
    refreshToken: z.string(),
    refreshExpiresIn: z.number().int(),
    user: User,
    organization: Organization,
  })
  .openapi('TokenResponse');
export type TokenResponse = z.infer<typeof TokenResponse>;

export const MeResponse = z
  .object({
    user: User.nullable(),
    organization: Organization,
    role: Role,
    plan: Plan,
    apiKeyId: Id.optional(),
  })
  .openapi('Me');

// ---- members ----

export const Member = z
  .object({
    id: Id,
    email: z.string(),
    role: Role,
    status: z.enum(['active', 'invited']),
    createdAt: z.string(),
  })
  .openapi('Member');
export type Member = z.infer<typeof Member>;

export const CreateMemberBody = z
  .object({
    email: Email,
    role: Role,
    password: Password.optional().openapi({ description: 'Sets the password now (no invitation)' }),
    invite: z.boolean().optional().openapi({
      description: 'Creates an invited member and returns a one-time `inviteToken` to pass on',
    }),
  })
  .strict()
  .superRefine((b, ctx) => {
    const invite = b.invite === true;
    if (invite && b.password !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['invite'],
        message: 'give a password or invite: true, not both',
      });
    if (!invite && b.password === undefined)
      ctx.addIssue({ code: 'custom', path: ['password'], message: 'is required unless invite is true' });
  });

export const CreatedMember = Member.extend({
  inviteToken: z.string().optional().openapi({ description: 'Shown once, only for invitations' }),
  inviteExpiresAt: z.string().optional(),
}).openapi('CreatedMember');

export const UpdateMemberBody = z.object({ role: Role }).strict();

// ---- API keys ----

/** Prefix of every API key secret: the gateway recognises keys by it (tokens are JWTs). */
export const API_KEY_PREFIX = 'ak_live_';

export const ApiKey = z
  .object({
    id: Id,
    name: z.string(),
    role: Role,
    prefix: z.string().openapi({ description: 'The first characters of the secret, e.g. `ak_live_3fZq`' }),
    lastFour: z.string(),
    createdAt: z.string(),
    createdBy: z.string().openapi({ description: 'User or API key id that created it' }),
    lastUsedAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .openapi({ description: 'While a rotation grace period runs: when the previous secret stops' }),
  })
  .openapi('ApiKey');
export type ApiKey = z.infer<typeof ApiKey>;

export const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(120),
    expiresAt: z
      .string()
      .datetime({ offset: true })
      .optional()
      .openapi({ description: 'ISO 8601; absent: the key does not expire' }),
    role: Role.optional().openapi({ description: "Defaults to `developer`; at most the creator's role" }),
  })
  .strict();

export const RotateApiKeyBody = z
  .object({
    gracePeriodSeconds: z
      .number()
      .int()
      .min(0)
      .max(30 * 86_400)
      .optional()
      .openapi({ description: 'How long the previous secret keeps working (default 86,400; 0: stops now)' }),
  })
  .strict();

export const ApiKeyWithSecret = z
  .object({
    apiKey: ApiKey,
    secret: z.string().openapi({ description: 'Shown once; send it as `Authorization: Bearer <secret>`' }),
  })
  .openapi('ApiKeyWithSecret');

// ---- JWKS ----

export const Jwk = z
  .object({
    kty: z.string(),
    crv: z.string().optional(),
    x: z.string().optional(),
    kid: z.string(),
    alg: z.string(),
    use: z.string().optional(),
  })
  .passthrough();
export const Jwks = z.object({ keys: z.array(Jwk) }).openapi('Jwks');
export type Jwks = z.infer<typeof Jwks>;

export const authRoutes = {
  signup: defineRoute({
    service: 'auth',
    method: 'post',
    path: '/api/v1/auth/signup',
    summary: 'Create an organization and its owner (when signup is enabled)',
    tag: 'Authentication',
    access: 'public',
    body: SignupBody,
    success: { status: 201, schema: TokenResponse },
    errors: [400, 403, 409],
  }),
  login: defineRoute({
    service: 'auth',
    method: 'post',
    path: '/api/v1/auth/login',
    summary: 'Authenticate and obtain an access token',
    tag: 'Authentication',
    access: 'public',
    body: LoginBody,
    success: { status: 200, schema: TokenResponse },
    errors: [400, 401, 429],
  }),
  refresh: defineRoute({
    service: 'auth',
    method: 'post',
    path: '/api/v1/auth/refresh',
    summary: 'Exchange a refresh token for new tokens (the old refresh token stops working)',
    tag: 'Authentication',
    access: 'public',
    body: RefreshBody,
    success: { status: 200, schema: TokenResponse },
    errors: [400, 401],
  }),
  logout: defineRoute({
    service: 'auth',
    method: 'post',
    path: '/api/v1/auth/logout',
    summary: 'End the current login: its refresh tokens and access tokens stop working',
    tag: 'Authentication',
    access: 'authenticated',
    success: { status: 204 },
    errors: [400],
  }),
  me: defineRoute({
    service: 'auth',
    method: 'get',
    path: '/api/v1/auth/me',
    summary: 'The caller: user, organization, role and plan',
    tag: 'Authentication',
    access: 'authenticated',
    success: { status: 200, schema: MeResponse },
  }),
  acceptInvitation: defineRoute({
    service: 'auth',
    method: 'post',
    path: '/api/v1/auth/invitations/accept',
    summary: 'Set the password of an invited member and log in',
    tag: 'Authentication',
    access: 'public',
    body: AcceptInvitationBody,
    success: { status: 200, schema: TokenResponse },
    errors: [400, 401],
  }),
  jwks: defineRoute({
    service: 'auth',
    method: 'get',
    path: '/api/v1/.well-known/jwks.json',
    summary: 'Public keys that verify access tokens (current and recently retired)',
    tag: 'Authentication',
    access: 'public',
    success: { status: 200, schema: Jwks },
  }),
  listMembers: defineRoute({
    service: 'auth',
    method: 'get',
    path: '/api/v1/members',
    summary: 'Members of the organization',
    tag: 'Members',
    access: 'authenticated',
    query: PageQuery,
    success: { status: 200, schema: pageOf(Member) },
  }),
  createMember: defineRoute({
    service: 'auth',
    method: 'post',
    path: '/api/v1/members',
    summary: 'Add a member with a password, or invite one (owners and admins)',
    tag: 'Members',
    access: 'authenticated',
    body: CreateMemberBody,
    success: { status: 201, schema: CreatedMember },
    errors: [403, 409],
  }),
  updateMember: defineRoute({
    service: 'auth',
    method: 'patch',
    path: '/api/v1/members/{id}',
    summary: "Change a member's role (owners and admins)",
    tag: 'Members',
    access: 'authenticated',
    params: IdParams,
    body: UpdateMemberBody,
    success: { status: 200, schema: Member },
    errors: [403, 404, 409],
  }),
  deleteMember: defineRoute({
    service: 'auth',
    method: 'delete',
    path: '/api/v1/members/{id}',
    summary: 'Remove a member; their tokens stop working (owners and admins)',
    tag: 'Members',
    access: 'authenticated',
    params: IdParams,
    success: { status: 204 },
    errors: [403, 404, 409],
  }),
  createApiKey: defineRoute({
    service: 'auth',
    method: 'post',
    path: '/api/v1/api-keys',
    summary: 'Create an API key; the secret is shown once (owners and admins)',
    tag: 'API keys',
    access: 'authenticated',
    body: CreateApiKeyBody,
    success: { status: 201, schema: ApiKeyWithSecret },
    errors: [403],
  }),
  listApiKeys: defineRoute({
    service: 'auth',
    method: 'get',
    path: '/api/v1/api-keys',
    summary: 'API keys of the organization (never their secrets)',
    tag: 'API keys',
    access: 'authenticated',
    query: PageQuery,
    success: { status: 200, schema: pageOf(ApiKey) },
  }),
  rotateApiKey: defineRoute({
    service: 'auth',
    method: 'post',
    path: '/api/v1/api-keys/{id}/rotate',
    summary: 'New secret for a key; the previous one works until the grace period ends',
    tag: 'API keys',
    access: 'authenticated',
    params: IdParams,
    body: RotateApiKeyBody,
    success: { status: 200, schema: ApiKeyWithSecret },
    errors: [403, 404],
  }),
  deleteApiKey: defineRoute({
    service: 'auth',
    method: 'delete',
    path: '/api/v1/api-keys/{id}',
    summary: 'Revoke an API key (rejected by every gateway within seconds)',
    tag: 'API keys',
    access: 'authenticated',
    params: IdParams,
    success: { status: 204 },
    errors: [403, 404],
  }),
};

/** What the gateway learns from a valid API key. */
export const ApiKeyIdentity = z.object({
  apiKeyId: Id,
  orgId: Id,
  role: Role,
  plan: Plan,
  /** Epoch ms after which this secret stops working (key expiry or end of a rotation grace period). */
  validUntil: z.number().nullable(),
});
export type ApiKeyIdentity = z.infer<typeof ApiKeyIdentity>;

export const authRpc = {
  /** Any service may ask for an organization's name and plan. */
  getOrganization: defineRpc('svc.auth.get-organization', z.object({ orgId: Id }), Organization),
  /** Public keys that verify access tokens; the gateway asks on start and on an unknown `kid`. */
  jwks: defineRpc('svc.auth.jwks', z.object({}), Jwks),
  /** The gateway sends the SHA-256 (hex) of a presented key, never the key itself. */
  verifyApiKey: defineRpc(
    'svc.auth.verify-api-key',
    z.object({ keyHash: z.string().regex(/^[0-9a-f]{64}$/) }),
    ApiKeyIdentity,
  ),
};

/**
 * Revocations every gateway must apply within seconds, in a JetStream KV bucket that each gateway
 * watches (a gateway that starts later reads the entries still there). Keys: `family.<familyId>`
 * (a logout or a refresh-token reuse: access tokens whose `sid` is that family), `user.<userId>`
 * (a removed member or changed role: tokens issued before `at`), `apikey.<apiKeyId>` (a deleted
 * key). Entries expire with the bucket's max age, which outlives every access token.
 */
export const revocationBucket = {
  name: 'auth_revocations',
  /** ACCESS_TOKEN_TTL_SECONDS is at most a day; 10 minutes of margin for clock skew. */
  maxAgeMs: 86_400_000 + 600_000,
} as const;

export const Revocation = z.object({
  kind: z.enum(['family', 'user', 'apikey']),
  id: Id,
  /** Epoch ms of the revocation; for `user`, tokens issued before it are rejected. */
  at: z.number(),
  /** Epoch ms after which the entry no longer matters (every affected token has expired). */
  until: z.number(),
});
export type Revocation = z.infer<typeof Revocation>;

export const revocationKey = (kind: Revocation['kind'], id: string) => `${kind}.${id}`;
