import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, isPrivateAddress, loadConfig } from '@platform/kit';
import { TEST_KEY_RING } from '@platform/testing';
import { integrationEnv } from '../src/config.ts';
import { TELEGRAM_TOKEN } from './fakes/messaging.ts';
import { startFakeSmtp } from './fakes/smtp.ts';
import { newOrg, startHarness, type Harness } from './helpers.ts';

describe('configuration of the address policy', () => {
  const base = { CREDENTIALS_KEYS: TEST_KEY_RING };
  it('refuses private networks unless ALLOW_PRIVATE_NETWORK is set, and needs CREDENTIALS_KEYS', () => {
    expect(loadConfig(integrationEnv, base).ALLOW_PRIVATE_NETWORK).toBe(false);
    expect(loadConfig(integrationEnv, { ...base, ALLOW_PRIVATE_NETWORK: 'true' }).ALLOW_PRIVATE_NETWORK).toBe(
      true,
    );
    expect(() => loadConfig(integrationEnv, {})).toThrow(ConfigError);
    expect(() => loadConfig(integrationEnv, {})).toThrow(/CREDENTIALS_KEYS/);
    expect(() => loadConfig(integrationEnv, { ...base, SLACK_API_URL: 'not a url' })).toThrow(
      /SLACK_API_URL/,
    );
  });
});

/** OWASP API7: with ALLOW_PRIVATE_NETWORK=false nothing reaches private, loopback or link-local addresses. */
describe('outbound address policy (SSRF)', () => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startFakeSmtp>>;
  const org = newOrg('ssrf');
  const create = (body: Record<string, unknown>) =>
    h.api(org, 'POST', '/api/v1/connections', { body: { name: `c-${Math.random()}`, ...body } });
  const run = (connectionId: string, action: string, input: unknown) =>
    h.rpc('svc.integration.run-action', { orgId: org, connectionId, action, input });
  const fakeHits = () => h.fake.requests.length;

  beforeAll(async () => {
    [h, smtp] = await Promise.all([startHarness({ ALLOW_PRIVATE_NETWORK: 'false' }), startFakeSmtp()]);
  });
  afterAll(async () => {
    await smtp?.close();
    await h?.dispose();
  });

  it('refuses private URLs in credentials and settings when a connection is saved, naming the field', async () => {
    const before = fakeHits();
    const loopback = await create({
      integrationId: 'http',
      credentials: { authKind: 'none' },
      settings: { baseUrl: `${h.fake.url}/rest/api` },
    });
    expect(loopback.status).toBe(400);
    expect(loopback.body.errors).toEqual([
      expect.objectContaining({ field: 'settings.baseUrl', message: expect.stringContaining('private') }),
    ]);
    const metadata = await create({
      integrationId: 'webhook',
      credentials: { url: 'http://169.254.169.254/latest/meta-data' },
    });
    expect(metadata.body.errors.map((e: any) => e.field)).toEqual(['credentials.url']);
    const oauth = await create({
      integrationId: 'http',
      credentials: {
        authKind: 'oauth2_client_credentials',
        tokenUrl: 'http://10.1.2.3/token',
        clientId: 'a',
        clientSecret: 'b',
      },
      settings: { baseUrl: 'http://[::1]:8080/' },
    });
    expect(oauth.body.errors.map((e: any) => e.field).sort()).toEqual([
      'credentials.tokenUrl',
      'settings.baseUrl',
    ]);
    const named = await create({
      integrationId: 'slack',
      credentials: { webhookUrl: 'http://localhost:9/hook' },
    });
    expect(named.body.errors.map((e: any) => e.field)).toEqual(['credentials.webhookUrl']);
    expect(fakeHits()).toBe(before);
  });

  it('refuses a configured base URL on a private address at the test call', async () => {
    const before = fakeHits();
    const telegram = await create({ integrationId: 'telegram', credentials: { botToken: TELEGRAM_TOKEN } });
    expect(telegram.status).toBe(400);
    expect(telegram.body.detail).toContain('private');
    expect(telegram.text).not.toContain(TELEGRAM_TOKEN);
    expect(fakeHits()).toBe(before);
  });

  it('applies the policy to SMTP too (not HTTP)', async () => {
    const settings = { host: '127.0.0.1', port: smtp.port, security: 'none', fromAddress: 'a@acme.test' };
    const refused = await create({ integrationId: 'smtp', credentials: { authKind: 'none' }, settings });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('settings');
    const unverified = await create({
      integrationId: 'smtp',
      credentials: { authKind: 'none' },
      settings,
      verify: false,
    });
    expect(unverified.status).toBe(201);
    const reply = await run(unverified.body.id, 'send', { to: 'b@example.test', subject: 's', text: 't' });
    expect(reply).toMatchObject({ ok: false, error: { kind: 'validation', retryable: false } });
    expect(reply.error.message).toContain('private');
    expect(smtp.received).toHaveLength(0);
  });

  const resolvesPrivately = async () => isPrivateAddress((await lookup(hostname())).address);
  it('checks the address a host name resolves to, not only literal addresses', async ({ skip }) => {
    if (!(await resolvesPrivately())) skip();
    const port = new URL(h.fake.url).port;
    const before = fakeHits();
    const res = await create({
      integrationId: 'http',
      credentials: { authKind: 'none' },
      settings: { baseUrl: `http://${hostname()}:${port}/rest/api`, testPath: '/ping' },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('private');
    expect(fakeHits()).toBe(before);
  });

  it('allows private addresses when configured, and refuses them again for existing connections when not', async () => {
    await h.restart({ ALLOW_PRIVATE_NETWORK: 'true' });
    const allowed = await create({
      integrationId: 'http',
      credentials: { authKind: 'bearer', token: 'tok-secret-1' },
      settings: { baseUrl: `${h.fake.url}/rest/api`, testPath: '/ping' },
    });
    expect(allowed.status).toBe(201);
    expect((await run(allowed.body.id, 'request', { path: '/ok' })).ok).toBe(true);

    await h.restart({ ALLOW_PRIVATE_NETWORK: 'false' });
    const before = fakeHits();
    const refused = await run(allowed.body.id, 'request', { path: '/ok' });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'validation', retryable: false } });
    expect(refused.error.message).toContain('private');
    expect(fakeHits()).toBe(before);
    const status = await h.api(org, 'GET', `/api/v1/connections/${allowed.body.id}`);
    expect(status.body.status).toBe('failing');
  });
});
