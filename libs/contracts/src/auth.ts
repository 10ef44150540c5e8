import { z } from './zod.ts';
import { defineRoute } from './http.ts';
import { defineRpc } from './subjects.ts';
import { Id, Plan, Role } from './common.ts';

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
  me: defineRoute({
    service: 'auth',
    method: 'get',
    path: '/api/v1/auth/me',
    summary: 'The caller: user, organization, role and plan',
    tag: 'Authentication',
    access: 'authenticated',
    success: { status: 200, schema: MeResponse },
  }),
};

export const authRpc = {
  /** Any service may ask for an organization's name and plan. */
  getOrganization: defineRpc('svc.auth.get-organization', z.object({ orgId: Id }), Organization),
};
