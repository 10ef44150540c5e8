import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startStack, uniqueEmail, type TestStack } from '@platform/testing';
import { addMember, login, PASSWORD, signup, sleep, type Account } from './support.ts';

/** Members and roles: who may manage whom, viewers read only, organizations never see each other. */
describe('members', () => {
  let stack: TestStack;
  let a: Account;
  let b: Account;

  beforeAll(async () => {
    stack = await startStack(['auth']);
    [a, b] = await Promise.all([signup(stack.url, 'Org A'), signup(stack.url, 'Org B')]);
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  const call = (method: string, path: string, token: string, body?: unknown) =>
    http(method, `${stack.url}/api/v1${path}`, { token, body });

  it('lists members with the page shape, newest first', async () => {
    const dev = await addMember(stack.url, a.accessToken, 'developer');
    const list = await call('GET', '/members?pageSize=10', a.accessToken);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, pageSize: 10, nextCursor: null });
    expect(list.body.items[0]).toMatchObject({ id: dev.id, role: 'developer', status: 'active' });
    expect(list.body.items.map((m: { id: string }) => m.id)).toContain(a.userId);
    expect(list.body.items.some((m: { passwordHash?: string }) => 'passwordHash' in m)).toBe(false);
    expect((await call('GET', '/members?bogus=1', a.accessToken)).status).toBe(400);
  });

  it('creates members; validation and duplicate emails are refused', async () => {
    const email = uniqueEmail();
    const created = await call('POST', '/members', a.accessToken, {
      email,
      role: 'admin',
      password: PASSWORD,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email, role: 'admin', status: 'active' });
    expect(created.body.inviteToken).toBeUndefined();
    expect((await login(stack.url, email)).status).toBe(200);
    const dup = await call('POST', '/members', a.accessToken, { email, role: 'viewer', password: PASSWORD });
    expect(dup.status).toBe(409);
    const bad = await call('POST', '/members', a.accessToken, { email: 'nope', role: 'king' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'role']);
  });

  it('changes roles; the member must refresh to use the new role', async () => {
    const m = await addMember(stack.url, a.accessToken, 'developer');
    const session = await login(stack.url, m.email);
    const patched = await call('PATCH', `/members/${m.id}`, a.accessToken, { role: 'viewer' });
    expect(patched.status).toBe(200);
    expect(patched.body.role).toBe('viewer');
    // Tokens issued before the change are revoked at the gateway.
    expect((await call('GET', '/auth/me', m.token)).status).toBe(401);
    await sleep(1_100);
    const refreshed = await http('POST', `${stack.url}/api/v1/auth/refresh`, {
      body: { refreshToken: session.body.refreshToken },
    });
    expect(refreshed.status).toBe(200);
    const me = await call('GET', '/auth/me', refreshed.body.accessToken);
    expect(me.body.role).toBe('viewer');
  });

  it('removes members: their tokens stop working and they cannot log in', async () => {
    const m = await addMember(stack.url, a.accessToken, 'developer');
    expect((await call('GET', '/auth/me', m.token)).status).toBe(200);
    expect((await call('DELETE', `/members/${m.id}`, a.accessToken)).status).toBe(204);
    expect((await call('GET', '/auth/me', m.token)).status).toBe(401);
    expect((await login(stack.url, m.email)).status).toBe(401);
    expect((await call('DELETE', `/members/${m.id}`, a.accessToken)).status).toBe(404);
  });

  it('viewers may only read; developers may not manage members', async () => {
    const viewer = await addMember(stack.url, a.accessToken, 'viewer');
    const developer = await addMember(stack.url, a.accessToken, 'developer');
    expect((await call('GET', '/members', viewer.token)).status).toBe(200);
    const body = { email: uniqueEmail(), role: 'viewer', password: PASSWORD };
    const byViewer = await call('POST', '/members', viewer.token, body);
    expect(byViewer.status).toBe(403);
    expect(byViewer.headers.get('content-type')).toContain('application/problem+json');
    expect((await call('PATCH', `/members/${developer.id}`, viewer.token, { role: 'admin' })).status).toBe(
      403,
    );
    expect((await call('DELETE', `/members/${developer.id}`, viewer.token)).status).toBe(403);
    expect((await call('POST', '/api-keys', viewer.token, { name: 'x' })).status).toBe(403);
    expect((await call('POST', '/members', developer.token, body)).status).toBe(403);
    expect((await call('DELETE', `/members/${viewer.id}`, developer.token)).status).toBe(403);
    // A viewer may still end their own login.
    expect((await call('POST', '/auth/logout', viewer.token)).status).toBe(204);
  });

  it('admins cannot create, promote to or touch owners; the last owner stays', async () => {
    const admin = await addMember(stack.url, a.accessToken, 'admin');
    const asOwner = { email: uniqueEmail(), role: 'owner', password: PASSWORD };
    expect((await call('POST', '/members', admin.token, asOwner)).status).toBe(403);
    const dev = await addMember(stack.url, admin.token, 'developer');
    expect((await call('PATCH', `/members/${dev.id}`, admin.token, { role: 'owner' })).status).toBe(403);
    expect((await call('PATCH', `/members/${a.userId}`, admin.token, { role: 'viewer' })).status).toBe(403);
    expect((await call('DELETE', `/members/${a.userId}`, admin.token)).status).toBe(403);
    const own = await signup(stack.url, 'Solo');
    const demote = await call('PATCH', `/members/${own.userId}`, own.accessToken, { role: 'admin' });
    expect(demote.status).toBe(409);
    expect((await call('DELETE', `/members/${own.userId}`, own.accessToken)).status).toBe(409);
  });

  it('organization B can neither see nor change the members of A', async () => {
    const m = await addMember(stack.url, a.accessToken, 'developer');
    const listB = await call('GET', '/members', b.accessToken);
    expect(listB.body.items.map((x: { id: string }) => x.id)).not.toContain(m.id);
    expect(listB.body.items.map((x: { id: string }) => x.id)).not.toContain(a.userId);
    expect((await call('PATCH', `/members/${m.id}`, b.accessToken, { role: 'viewer' })).status).toBe(404);
    expect((await call('DELETE', `/members/${m.id}`, b.accessToken)).status).toBe(404);
    expect((await call('DELETE', `/members/${a.userId}`, b.accessToken)).status).toBe(404);
    const still = await call('GET', '/members', a.accessToken);
    expect(still.body.items.find((x: { id: string }) => x.id === m.id).role).toBe('developer');
  });
});
