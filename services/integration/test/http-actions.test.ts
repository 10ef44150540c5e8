import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_CLIENT } from './fakes/apis.ts';
import { basicAuthOf } from './fakes/server.ts';
import { SMTP_PASS, SMTP_USER, startFakeSmtp } from './fakes/smtp.ts';
import { newOrg, startHarness, type Harness } from './helpers.ts';

/** Generic HTTP (every auth kind), outbound webhook and SMTP email, against local fakes. */
describe('HTTP, webhook and email actions', () => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof startFakeSmtp>>;
  const org = newOrg('http');
  const ids: Record<string, string> = {};
  const run = (connection: string, action: string, input: unknown, extra: object = {}) =>
    h.rpc('svc.integration.run-action', {
      orgId: org,
      connectionId: ids[connection],
      action,
      input,
      ...extra,
    });
  const last = (prefix: string) => [...h.fake.requests].reverse().find((r) => r.path.startsWith(prefix))!;
  const create = async (key: string, body: Record<string, unknown>) => {
    const res = await h.api(org, 'POST', '/api/v1/connections', { body: { name: key, ...body } });
    if (res.status !== 201) throw new Error(`${key}: ${res.status} ${res.text}`);
    ids[key] = res.body.id;
    return res.body;
  };
  const api = () => `${h.fake.url}/rest/api`;

  beforeAll(async () => {
    [h, smtp] = await Promise.all([startHarness(), startFakeSmtp()]);
  });
  afterAll(async () => {
    await smtp?.close();
    await h?.dispose();
  });

  it('HTTP: every auth kind is applied the way the API expects', async () => {
    const settings = { baseUrl: api(), headers: { 'X-Custom': 'yes' } };
    await create('none', { integrationId: 'http', credentials: { authKind: 'none' }, settings });
    await create('keyHeader', {
      integrationId: 'http',
      credentials: { authKind: 'api_key', apiKey: 'k-123' },
      settings,
    });
    await create('keyQuery', {
      integrationId: 'http',
      credentials: { authKind: 'api_key', apiKey: 'k-456', in: 'query', name: 'api_key' },
      settings,
    });
    await create('basic', {
      integrationId: 'http',
      credentials: { authKind: 'basic', username: 'u', password: 'p:w' },
      settings,
    });
    await create('bearer', {
      integrationId: 'http',
      credentials: { authKind: 'bearer', token: 't-789' },
      settings,
    });

    const none = await run('none', 'request', { path: '/things', query: { page: 2, q: 'a b' } });
    expect(none).toMatchObject({
      ok: true,
      data: {
        output: {
          status: 200,
          truncated: false,
          body: {
            method: 'GET',
            path: '/api/things',
            query: { page: '2', q: 'a b' },
            authorization: null,
            custom: 'yes',
          },
        },
      },
    });
    expect((await run('keyHeader', 'request', { path: 'things' })).data.output.body.apiKey).toBe('k-123');
    expect((await run('keyQuery', 'request', { path: '/things' })).data.output.body.query).toEqual({
      api_key: 'k-456',
    });
    const basic = await run('basic', 'request', { method: 'DELETE', path: '/things/1' });
    expect(basic.data.output.body).toMatchObject({
      method: 'DELETE',
      authorization: `Basic ${Buffer.from('u:p:w').toString('base64')}`,
    });
    const post = await run('bearer', 'request', { method: 'POST', path: '/things', body: { name: 'x' } });
    expect(post.data.output.body).toMatchObject({
      authorization: 'Bearer t-789',
      contentType: 'application/json',
      body: { name: 'x' },
    });
    const text = await run('bearer', 'request', { method: 'PUT', path: '/raw', body: 'plain words' });
    expect(text.data.output.body).toMatchObject({
      contentType: 'text/plain; charset=utf-8',
      body: 'plain words',
    });
  });

  it('HTTP: OAuth 2 client credentials, token cached and refreshed after a 401', async () => {
    const oauth = {
      authKind: 'oauth2_client_credentials',
      tokenUrl: `${h.fake.url}/rest/oauth/token`,
      clientId: OAUTH_CLIENT.id,
      clientSecret: OAUTH_CLIENT.secret,
      scope: 'read',
    };
    const bad = await h.api(org, 'POST', '/api/v1/connections', {
      body: {
        integrationId: 'http',
        name: 'bad oauth',
        credentials: { ...oauth, clientSecret: 'wrong' },
        settings: { baseUrl: api() },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('invalid_client');
    const connection = await create('oauth', {
      integrationId: 'http',
      credentials: oauth,
      settings: { baseUrl: api() },
    });
    expect(connection).toMatchObject({ authKind: 'oauth2_client_credentials', status: 'active' });
    const tokenCall = last('/rest/oauth/token');
    expect(basicAuthOf(tokenCall)).toEqual({ user: OAUTH_CLIENT.id, pass: OAUTH_CLIENT.secret });
    expect(Object.fromEntries(tokenCall.form)).toEqual({ grant_type: 'client_credentials', scope: 'read' });
    const tokenCalls = () => h.fake.requests.filter((r) => r.path === '/rest/oauth/token').length;
    const before = tokenCalls();
    const first = await run('oauth', 'request', { path: '/protected' });
    const second = await run('oauth', 'request', { path: '/protected' });
    expect(first.data.output).toMatchObject({ status: 200, body: { ok: true } });
    expect(second.ok).toBe(true);
    expect(tokenCalls()).toBe(before); // the token of the test call is reused
    await fetch(`${h.fake.url}/rest/oauth/revoke-all`);
    const afterRevocation = await run('oauth', 'request', { path: '/protected' });
    expect(afterRevocation.data.output).toMatchObject({ status: 200, body: { ok: true } });
    expect(tokenCalls()).toBe(before + 1); // one new token, then the request went through
  });

  it('HTTP: non-2xx answers are typed errors unless asked for as output', async () => {
    await create('plain', {
      integrationId: 'http',
      credentials: { authKind: 'none' },
      settings: { baseUrl: api() },
    });
    expect(await run('plain', 'request', { path: '/status/404' })).toMatchObject({
      ok: false,
      error: { kind: 'validation', retryable: false },
    });
    const limited = await run('plain', 'request', { path: '/status/429' });
    expect(limited).toMatchObject({ ok: false, error: { kind: 'unavailable', retryable: true } });
    expect(limited.error.message).toContain('retry after 3 s');
    expect(await run('plain', 'request', { path: '/status/502' })).toMatchObject({
      ok: false,
      error: { kind: 'unavailable', retryable: true },
    });
    expect(await run('plain', 'request', { path: '/status/401' })).toMatchObject({
      ok: false,
      error: { kind: 'unauthorized', retryable: false },
    });
    const asOutput = await run('plain', 'request', { path: '/status/404', throwOnHttpError: false });
    expect(asOutput).toMatchObject({
      ok: true,
      data: { output: { status: 404, body: { message: 'status 404' } } },
    });
    const redirect = await run('plain', 'request', { path: '/redirect' });
    expect(redirect.error.message).toContain('redirects are not followed');
    const slow = await run('plain', 'request', { path: '/slow' }, { timeoutMs: 300 });
    expect(slow).toMatchObject({ ok: false, error: { kind: 'timeout', retryable: true } });
    const escape = await run('plain', 'request', { path: 'http://elsewhere.example/steal' });
    expect(escape).toMatchObject({
      ok: false,
      error: { kind: 'validation', errors: [{ field: 'input.path' }] },
    });
    const badInput = await run('plain', 'request', { method: 'BREW', extra: 1 });
    expect(badInput.error.errors.map((e: any) => e.field).sort()).toEqual(['input.extra', 'input.method']);
  });

  it('webhook: POSTs JSON signed with the Standard Webhooks scheme', async () => {
    const secret = `whsec_${Buffer.from('super-secret-signing-key').toString('base64')}`;
    await create('hook', {
      integrationId: 'webhook',
      credentials: { url: `${h.fake.url}/hook/in`, signingSecret: secret },
      settings: { headers: { 'X-Tenant': 'acme' } },
    });
    const reply = await run(
      'hook',
      'post',
      { payload: { order: 7 }, eventType: 'order.paid' },
      { requestId: 'exec-1:step-2' },
    );
    expect(reply).toMatchObject({ ok: true, data: { output: { status: 202, body: { received: true } } } });
    const req = last('/hook/in');
    expect(req.json).toEqual({ order: 7 });
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'exec-1:step-2',
      'idempotency-key': 'exec-1:step-2',
      'webhook-event': 'order.paid',
      'x-tenant': 'acme',
    });
    const expected = createHmac('sha256', Buffer.from('super-secret-signing-key'))
      .update(`exec-1:step-2.${req.headers['webhook-timestamp']}.${req.raw}`)
      .digest('base64');
    expect(req.headers['webhook-signature']).toBe(`v1,${expected}`);
    await create('hookFail', { integrationId: 'webhook', credentials: { url: `${h.fake.url}/hook/fail` } });
    await create('hookGone', { integrationId: 'webhook', credentials: { url: `${h.fake.url}/hook/gone` } });
    expect(await run('hookFail', 'post', { payload: 1 })).toMatchObject({
      ok: false,
      error: { kind: 'unavailable', retryable: true },
    });
    expect(await run('hookGone', 'post', { payload: 1 })).toMatchObject({
      ok: false,
      error: { kind: 'validation', retryable: false },
    });
    expect(await run('hook', 'post', {})).toMatchObject({
      ok: false,
      error: { errors: [{ field: 'input.payload' }] },
    });
  });

  it('SMTP: logs in, sends, reports refused recipients; wrong password refused at creation', async () => {
    const settings = {
      host: '127.0.0.1',
      port: smtp.port,
      security: 'none',
      fromAddress: 'noreply@acme.test',
      fromName: 'Acme',
    };
    const wrong = await h.api(org, 'POST', '/api/v1/connections', {
      body: {
        integrationId: 'smtp',
        name: 'smtp wrong',
        credentials: { username: SMTP_USER, password: 'nope' },
        settings,
      },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].field).toBe('credentials');
    const noTls = await h.api(org, 'POST', '/api/v1/connections', {
      body: {
        integrationId: 'smtp',
        name: 'smtp starttls',
        credentials: { username: SMTP_USER, password: SMTP_PASS },
        settings: { ...settings, security: 'starttls' },
      },
    });
    expect(noTls.status).toBe(400); // the server offers no STARTTLS: the password is never sent in clear
    expect(noTls.body.detail).toMatch(/TLS/);
    await create('smtp', {
      integrationId: 'smtp',
      credentials: { username: SMTP_USER, password: SMTP_PASS },
      settings,
    });
    const reply = await run('smtp', 'send', {
      to: ['ann@example.test', 'bob@blocked.test'],
      subject: 'Your report',
      text: 'Attached below.',
      html: '<p>Attached below.</p>',
    });
    expect(reply.ok).toBe(true);
    expect(reply.data.output).toMatchObject({
      accepted: ['ann@example.test'],
      rejected: ['bob@blocked.test'],
    });
    const mail = smtp.received.at(-1)!;
    expect(mail).toMatchObject({ from: 'noreply@acme.test', to: ['ann@example.test'], user: SMTP_USER });
    expect(mail.data).toContain('Subject: Your report');
    expect(mail.data).toContain('From: Acme <noreply@acme.test>');
    const allRefused = await run('smtp', 'send', { to: 'x@blocked.test', subject: 's', text: 't' });
    expect(allRefused).toMatchObject({ ok: false, error: { kind: 'validation', retryable: false } });
    const noBody = await run('smtp', 'send', { to: 'a@example.test', subject: 's' });
    expect(noBody).toMatchObject({ ok: false, error: { errors: [{ field: 'input.text' }] } });
  });
});
