import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startStack, type TestStack } from '@platform/testing';
import { addMember, signup, sleep, within, type Account } from './support.ts';

/** API keys: shown once, hashed, usable as a bearer, rotated with a grace period, revoked fast. */
describe('API keys', () => {
  let stack: TestStack;
  let a: Account;
  let b: Account;

  beforeAll(async () => {
    stack = await startStack(['auth'], { serviceEnv: { gateway: { API_KEY_CACHE_MS: '1000' } } });
    [a, b] = await Promise.all([signup(stack.url, 'Keys A'), signup(stack.url, 'Keys B')]);
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  const call = (method: string, path: string, token: string, body?: unknown) =>
    http(method, `${stack.url}/api/v1${path}`, { token, body });
  const create = async (token: string, body: Record<string, unknown> = { name: 'ci' }) => {
    const res = await call('POST', '/api-keys', token, body);
    expect(res.status).toBe(201);
    return res.body as { apiKey: { id: string; prefix: string; lastFour: string }; secret: string };
  };

  it('creates a key whose secret is shown once and lists keys without secrets', async () => {
    const { apiKey, secret } = await create(a.accessToken, { name: 'deploy bot' });
    expect(secret).toMatch(/^ak_live_[A-Za-z0-9_-]{43}$/);
    expect(apiKey).toMatchObject({
      name: 'deploy bot',
      role: 'developer',
      lastUsedAt: null,
      expiresAt: null,
    });
    expect(secret.startsWith(apiKey.prefix)).toBe(true);
    expect(secret.endsWith(apiKey.lastFour)).toBe(true);
    const list = await call('GET', '/api-keys', a.accessToken);
    expect(list.status).toBe(200);
    const listed = list.body.items.find((k: { id: string }) => k.id === apiKey.id);
    expect(listed).toMatchObject({ prefix: apiKey.prefix, lastFour: apiKey.lastFour });
    expect(list.text).not.toContain(secret);
    expect(list.text).not.toContain(secret.slice(12, 30));
  });

  it('authenticates with the key as a bearer, and records its use', async () => {
    const { apiKey, secret } = await create(a.accessToken, { name: 'reader', role: 'viewer' });
    const me = await call('GET', '/auth/me', secret);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: null,
      apiKeyId: apiKey.id,
      role: 'viewer',
      organization: { id: a.orgId },
    });
    expect((await call('POST', '/api-keys', secret, { name: 'x' })).status).toBe(403);
    await within(3_000, async () => {
      const list = await call('GET', '/api-keys', a.accessToken);
      return !!list.body.items.find((k: { id: string }) => k.id === apiKey.id).lastUsedAt;
    });
    expect((await call('GET', '/auth/me', `${secret.slice(0, -1)}x`)).status).toBe(401);
    expect((await call('GET', '/auth/me', 'ak_live_short')).status).toBe(401);
    // Logout is for logins, not keys.
    expect((await call('POST', '/auth/logout', (await create(a.accessToken)).secret)).status).toBe(400);
  });

  it('caps the role at the creator’s and refuses an expiry in the past', async () => {
    const admin = await addMember(stack.url, a.accessToken, 'admin');
    expect((await call('POST', '/api-keys', admin.token, { name: 'x', role: 'owner' })).status).toBe(403);
    expect((await call('POST', '/api-keys', admin.token, { name: 'x', role: 'admin' })).status).toBe(201);
    const past = await call('POST', '/api-keys', a.accessToken, {
      name: 'x',
      expiresAt: '2001-01-01T00:00:00Z',
    });
    expect(past.status).toBe(400);
    expect(past.body.errors[0].field).toBe('expiresAt');
    const dev = await addMember(stack.url, a.accessToken, 'developer');
    expect((await call('POST', '/api-keys', dev.token, { name: 'x' })).status).toBe(403);
  });

  it('stops accepting a key when it expires', async () => {
    const expiresAt = new Date(Date.now() + 2_000).toISOString();
    const { secret } = await create(a.accessToken, { name: 'short', expiresAt });
    expect((await call('GET', '/auth/me', secret)).status).toBe(200);
    await sleep(2_200);
    expect((await call('GET', '/auth/me', secret)).status).toBe(401);
  });

  it('rotates: the new secret works at once, the old one until the grace period ends', async () => {
    const { apiKey, secret: oldSecret } = await create(a.accessToken, { name: 'rotating' });
    const rotated = await call('POST', `/api-keys/${apiKey.id}/rotate`, a.accessToken, {
      gracePeriodSeconds: 3,
    });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.body.apiKey.id).toBe(apiKey.id);
    expect(rotated.body.apiKey.previousSecretExpiresAt).toBeTruthy();
    expect((await call('GET', '/auth/me', newSecret)).status).toBe(200);
    expect((await call('GET', '/auth/me', oldSecret)).status).toBe(200);
    const took = await within(
      3_000 + 3_000,
      async () => (await call('GET', '/auth/me', oldSecret)).status === 401,
    );
    expect(took).toBeGreaterThan(1_000);
    expect((await call('GET', '/auth/me', newSecret)).status).toBe(200);
    // Without a grace period the old secret stops at once (within the gateway's short cache).
    const again = await call('POST', `/api-keys/${apiKey.id}/rotate`, a.accessToken, {
      gracePeriodSeconds: 0,
    });
    await within(2_000, async () => (await call('GET', '/auth/me', newSecret)).status === 401);
    expect((await call('GET', '/auth/me', again.body.secret)).status).toBe(200);
  });

  it('deleting a key rejects it at once', async () => {
    const { apiKey, secret } = await create(a.accessToken, { name: 'doomed' });
    expect((await call('GET', '/auth/me', secret)).status).toBe(200);
    expect((await call('DELETE', `/api-keys/${apiKey.id}`, a.accessToken)).status).toBe(204);
    await within(1_000, async () => (await call('GET', '/auth/me', secret)).status === 401);
    expect((await call('DELETE', `/api-keys/${apiKey.id}`, a.accessToken)).status).toBe(404);
  });

  it('organization B can neither see, rotate nor delete the keys of A', async () => {
    const { apiKey, secret } = await create(a.accessToken, { name: 'private' });
    const listB = await call('GET', '/api-keys', b.accessToken);
    expect(listB.body.items.map((k: { id: string }) => k.id)).not.toContain(apiKey.id);
    expect((await call('POST', `/api-keys/${apiKey.id}/rotate`, b.accessToken, {})).status).toBe(404);
    expect((await call('DELETE', `/api-keys/${apiKey.id}`, b.accessToken)).status).toBe(404);
    expect((await call('GET', '/auth/me', secret)).status).toBe(200);
    // A's key acts inside A only.
    const viaKey = await call('GET', '/members', secret);
    expect(viaKey.body.items.map((m: { id: string }) => m.id)).toContain(a.userId);
    expect(viaKey.body.items.map((m: { id: string }) => m.id)).not.toContain(b.userId);
  });
});
