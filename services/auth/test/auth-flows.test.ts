import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtectedHeader } from 'jose';
import { http, startStack, uniqueEmail, type TestStack } from '@platform/testing';
import { login, PASSWORD, signup, within } from './support.ts';

/** Signup, login (with its failure limits), refresh rotation and reuse detection, logout, me. */
describe('authentication flows through the gateway', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(['auth'], {
      // Debug logs: the last test checks that no secret reaches them.
      env: { LOG_LEVEL: 'debug' },
      serviceEnv: { auth: { LOGIN_MAX_FAILURES_PER_EMAIL: '3', LOGIN_MAX_FAILURES_PER_IP: '12' } },
    });
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it('signs up an organization (plan pro) and its owner, and refuses a second account per email', async () => {
    const email = uniqueEmail();
    const res = await http('POST', `${stack.url}/api/v1/auth/signup`, {
      body: { organizationName: 'Acme', email, password: PASSWORD },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 900,
      organization: { name: 'Acme', plan: 'pro' },
      user: { email },
    });
    expect(res.body.refreshToken).toMatch(/^rt_/);
    expect(decodeProtectedHeader(res.body.accessToken)).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt' });
    const again = await http('POST', `${stack.url}/api/v1/auth/signup`, {
      body: { organizationName: 'Other', email, password: PASSWORD },
    });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    const short = await http('POST', `${stack.url}/api/v1/auth/signup`, {
      body: { organizationName: 'X', email: uniqueEmail(), password: 'short' },
    });
    expect(short.status).toBe(400);
    expect(short.body.errors[0].field).toBe('password');
  });

  it('logs in, and answers 401 with the same message for an unknown email and a wrong password', async () => {
    const account = await signup(stack.url);
    const ok = await login(stack.url, account.email);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ tokenType: 'Bearer', user: { id: account.userId } });
    expect(ok.body.refreshExpiresIn).toBeGreaterThan(3600);
    const wrong = await login(stack.url, account.email, 'not the password');
    const unknown = await login(stack.url, uniqueEmail(), 'not the password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.detail).toBe(unknown.body.detail);
    expect(wrong.text).not.toContain('password hash');
  });

  it('slows down repeated failures for one email with 429, even with the right password', async () => {
    const account = await signup(stack.url);
    for (let i = 0; i < 3; i++)
      expect((await login(stack.url, account.email, 'wrong-password')).status).toBe(401);
    const blocked = await login(stack.url, account.email);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.body.type).toMatch(/too-many-login-attempts$/);
  });

  it('limits failures per client address across emails', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.77' };
    const attempt = (email: string, password = 'wrong-password') =>
      http('POST', `${stack.url}/api/v1/auth/login`, { headers, body: { email, password } });
    for (let i = 0; i < 12; i++) expect((await attempt(uniqueEmail())).status).toBe(401);
    expect((await attempt(uniqueEmail())).status).toBe(429);
    // Another address is not affected.
    const account = await signup(stack.url);
    expect((await login(stack.url, account.email)).status).toBe(200);
  });

  it('rotates refresh tokens: the new pair works, the old refresh token does not', async () => {
    const account = await signup(stack.url);
    const first = await http('POST', `${stack.url}/api/v1/auth/refresh`, {
      body: { refreshToken: account.refreshToken },
    });
    expect(first.status).toBe(200);
    expect(first.body.refreshToken).not.toBe(account.refreshToken);
    const me = await http('GET', `${stack.url}/api/v1/auth/me`, { token: first.body.accessToken });
    expect(me.status).toBe(200);
    const second = await http('POST', `${stack.url}/api/v1/auth/refresh`, {
      body: { refreshToken: first.body.refreshToken },
    });
    expect(second.status).toBe(200);
    const bogus = await http('POST', `${stack.url}/api/v1/auth/refresh`, {
      body: { refreshToken: 'rt_nope' },
    });
    expect(bogus.status).toBe(401);
    expect(bogus.headers.get('www-authenticate')).toContain('Bearer');
  });

  it('detects reuse of a rotated refresh token and revokes the whole family, access tokens too', async () => {
    const account = await signup(stack.url);
    const rotated = await http('POST', `${stack.url}/api/v1/auth/refresh`, {
      body: { refreshToken: account.refreshToken },
    });
    expect(rotated.status).toBe(200);
    // An attacker replays the first refresh token.
    const replay = await http('POST', `${stack.url}/api/v1/auth/refresh`, {
      body: { refreshToken: account.refreshToken },
    });
    expect(replay.status).toBe(401);
    // The legitimate client's newer refresh token is dead too, and so are the family's access tokens.
    const legit = await http('POST', `${stack.url}/api/v1/auth/refresh`, {
      body: { refreshToken: rotated.body.refreshToken },
    });
    expect(legit.status).toBe(401);
    // The gateway learns the revocation through NATS: the issue allows up to 5 s.
    await within(5_000, async () => {
      const me = await http('GET', `${stack.url}/api/v1/auth/me`, { token: rotated.body.accessToken });
      return me.status === 401;
    });
    // A fresh login starts a new family that works.
    expect((await login(stack.url, account.email)).status).toBe(200);
  });

  it('logout revokes the refresh family and makes the access token unusable at once', async () => {
    const account = await signup(stack.url);
    const other = await login(stack.url, account.email);
    const out = await http('POST', `${stack.url}/api/v1/auth/logout`, { token: account.accessToken });
    expect(out.status).toBe(204);
    expect((await http('GET', `${stack.url}/api/v1/auth/me`, { token: account.accessToken })).status).toBe(
      401,
    );
    const refreshed = await http('POST', `${stack.url}/api/v1/auth/refresh`, {
      body: { refreshToken: account.refreshToken },
    });
    expect(refreshed.status).toBe(401);
    // Another login of the same user is a different family and keeps working.
    expect((await http('GET', `${stack.url}/api/v1/auth/me`, { token: other.body.accessToken })).status).toBe(
      200,
    );
    expect((await http('POST', `${stack.url}/api/v1/auth/logout`)).status).toBe(401);
  });

  it('me: user, organization, role and plan', async () => {
    const account = await signup(stack.url, 'Me Inc');
    const me = await http('GET', `${stack.url}/api/v1/auth/me`, { token: account.accessToken });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: { id: account.userId, email: account.email },
      organization: { id: account.orgId, name: 'Me Inc', plan: 'pro' },
      role: 'owner',
      plan: 'pro',
    });
    expect((await http('GET', `${stack.url}/api/v1/auth/me`)).status).toBe(401);
  });

  it('invites a member who sets a password with the one-time token', async () => {
    const owner = await signup(stack.url);
    const email = uniqueEmail('invitee');
    const invited = await http('POST', `${stack.url}/api/v1/members`, {
      token: owner.accessToken,
      body: { email, role: 'developer', invite: true },
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email, role: 'developer', status: 'invited' });
    expect(invited.body.inviteToken).toMatch(/^inv_/);
    expect((await login(stack.url, email)).status).toBe(401);
    const accepted = await http('POST', `${stack.url}/api/v1/auth/invitations/accept`, {
      body: { inviteToken: invited.body.inviteToken, password: PASSWORD },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.organization.id).toBe(owner.orgId);
    expect((await login(stack.url, email)).status).toBe(200);
    const reused = await http('POST', `${stack.url}/api/v1/auth/invitations/accept`, {
      body: { inviteToken: invited.body.inviteToken, password: PASSWORD },
    });
    expect(reused.status).toBe(401);
    const both = await http('POST', `${stack.url}/api/v1/members`, {
      token: owner.accessToken,
      body: { email: uniqueEmail(), role: 'viewer', invite: true, password: PASSWORD },
    });
    expect(both.status).toBe(400);
  });

  it('serves the JWKS without a token: Ed25519 public keys only', async () => {
    const res = await http('GET', `${stack.url}/api/v1/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.body.keys.length).toBeGreaterThan(0);
    for (const key of res.body.keys) {
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
      expect(key.d).toBeUndefined();
    }
  });

  it('a service reached directly without the internal token answers 401', async () => {
    const account = await signup(stack.url);
    const direct = await http('GET', `${stack.services.auth!.url}/api/v1/auth/me`, {
      token: account.accessToken,
    });
    expect(direct.status).toBe(401);
    const forged = await http('GET', `${stack.services.auth!.url}/api/v1/members`, {
      headers: { 'x-internal-token': 'eyJhbGciOiJub25lIn0.e30.' },
    });
    expect(forged.status).toBe(401);
  });

  it('writes no password, token or key to the logs', async () => {
    const account = await signup(stack.url);
    const key = await http('POST', `${stack.url}/api/v1/api-keys`, {
      token: account.accessToken,
      body: { name: 'k' },
    });
    await http('GET', `${stack.url}/api/v1/auth/me`, { token: key.body.secret });
    await http('POST', `${stack.url}/api/v1/auth/refresh`, { body: { refreshToken: account.refreshToken } });
    await http('POST', `${stack.url}/api/v1/auth/refresh`, { body: { refreshToken: account.refreshToken } });
    await new Promise((r) => setTimeout(r, 300));
    const logs =
      readFileSync(stack.services.auth!.logFile, 'utf8') + readFileSync(stack.gateway!.logFile, 'utf8');
    expect(logs).toContain('refresh token reused');
    for (const secret of [PASSWORD, account.accessToken, account.refreshToken, key.body.secret]) {
      expect(logs).not.toContain(secret);
    }
  });
});
