import { readFileSync } from 'node:fs';
import mongoose, { type Connection as Db } from 'mongoose';
import type { Subscription } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptSecret, keyRingFromEnv } from '@platform/kit';
import { TEST_KEY_RING } from '@platform/testing';
import { SLACK_BOT_TOKEN } from './fakes/messaging.ts';
import { newOrg, startHarness, waitFor, type Harness } from './helpers.ts';

const OTHER_TOKEN = 'xoxb-9999-revoked-token';

describe('connections', () => {
  let h: Harness;
  let raw: Db;
  let events: Subscription;
  const received: any[] = [];
  const orgA = newOrg('a');
  const orgB = newOrg('b');
  const slackBody = (name: string, token = SLACK_BOT_TOKEN) => ({
    integrationId: 'slack',
    name,
    credentials: { authKind: 'bearer', botToken: token },
    settings: { defaultChannel: 'C1' },
  });
  const httpBody = (name: string, testPath = '/ping') => ({
    integrationId: 'http',
    name,
    credentials: { authKind: 'bearer', token: 'http-secret-token' },
    settings: { baseUrl: `${h.fake.url}/rest/api`, testPath },
  });

  beforeAll(async () => {
    h = await startHarness({ LOG_LEVEL: 'info' });
    raw = await mongoose.createConnection(h.infra.mongo.url, { dbName: 'integration' }).asPromise();
    events = h.nc.subscribe('evt.connection.>', {
      callback: (_err, msg) => {
        received.push(JSON.parse(msg.string()));
      },
    });
  });
  afterAll(async () => {
    events?.unsubscribe();
    await raw?.close();
    await h?.dispose();
  });

  let slackId: string;

  it('creates a connection: verified, encrypted, returned without secrets, announced', async () => {
    const res = await h.api(orgA, 'POST', '/api/v1/connections', { body: slackBody('Team Slack') });
    expect(res.status).toBe(201);
    slackId = res.body.id;
    expect(res.body).toMatchObject({
      integrationId: 'slack',
      name: 'Team Slack',
      authKind: 'bearer',
      settings: { defaultChannel: 'C1' },
      status: 'active',
      statusReason: null,
      lastUsedAt: null,
    });
    expect(res.body.lastTestedAt).toBeTypeOf('string');
    expect(res.text).not.toContain(SLACK_BOT_TOKEN);
    expect(res.body).not.toHaveProperty('credentials');
    const check = h.fake.requests.find((r) => r.path === '/slack/api/auth.test');
    expect(check?.headers.authorization).toBe(`Bearer ${SLACK_BOT_TOKEN}`);
    await waitFor(() =>
      received.find((e) => e.type === 'connection.created' && e.data.connectionId === slackId),
    );
    const event = received.find((e) => e.data.connectionId === slackId);
    expect(event).toMatchObject({ orgId: orgA, data: { integrationId: 'slack', name: 'Team Slack' } });
    expect(JSON.stringify(event)).not.toContain(SLACK_BOT_TOKEN);
  });

  it('stores credentials that cannot be read without the key', async () => {
    const doc = await raw.collection('connections').findOne({ _id: slackId as never });
    expect(doc).toBeTruthy();
    expect(JSON.stringify(doc)).not.toContain(SLACK_BOT_TOKEN);
    expect(JSON.stringify(doc)).not.toContain('botToken');
    expect(doc!.keyId).toBe('test1');
    expect(doc!.credentialsSealed).toMatch(/^v1\.test1\./);
    const ring = keyRingFromEnv.parse(TEST_KEY_RING);
    expect(JSON.parse(decryptSecret(ring, doc!.credentialsSealed, slackId))).toEqual({
      authKind: 'bearer',
      botToken: SLACK_BOT_TOKEN,
    });
    const wrongKey = keyRingFromEnv.parse(`test1:${Buffer.alloc(32, 9).toString('base64')}`);
    expect(() => decryptSecret(wrongKey, doc!.credentialsSealed, slackId)).toThrow();
    // Bound to its connection: the sealed value cannot be copied onto another connection.
    expect(() => decryptSecret(ring, doc!.credentialsSealed, 'con_other')).toThrow();
  });

  it('names each bad field of credentials, settings and body', async () => {
    const missing = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: { integrationId: 'slack', name: 'x', credentials: { authKind: 'bearer' } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([
      expect.objectContaining({ field: 'credentials.botToken', location: 'body' }),
    ]);
    const apiKey = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: {
        integrationId: 'http',
        name: 'x',
        credentials: { authKind: 'api_key' },
        settings: { baseUrl: 'ftp://x' },
      },
    });
    expect(apiKey.body.errors.map((e: any) => e.field).sort()).toEqual([
      'credentials.apiKey',
      'settings.baseUrl',
    ]);
    const kind = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: {
        integrationId: 'http',
        name: 'x',
        credentials: { authKind: 'magic' },
        settings: { baseUrl: 'https://a.example' },
      },
    });
    expect(kind.body.errors.map((e: any) => e.field)).toEqual(['credentials.authKind']);
    const extra = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: { integrationId: 'telegram', name: 'x', credentials: { botToken: 'nope', spare: 1 } },
    });
    expect(extra.body.errors.map((e: any) => e.field).sort()).toEqual([
      'credentials.botToken',
      'credentials.spare',
    ]);
    const unknown = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: { integrationId: 'fax', name: 'x', credentials: {} },
    });
    expect(unknown.body.errors.map((e: any) => e.field)).toEqual(['integrationId']);
    const body = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: { name: '', credentials: 'x', extra: 1 },
    });
    expect(body.body.errors.map((e: any) => e.field).sort()).toEqual([
      'credentials',
      'extra',
      'integrationId',
      'name',
    ]);
  });

  it('refuses credentials the third party rejects, and stores nothing', async () => {
    const before = (await h.api(orgA, 'GET', '/api/v1/connections')).body.total;
    const res = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: slackBody('Bad Slack', OTHER_TOKEN),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'credentials' })]);
    expect(res.body.detail).toContain('invalid_auth');
    expect(res.text).not.toContain(OTHER_TOKEN);
    expect((await h.api(orgA, 'GET', '/api/v1/connections')).body.total).toBe(before);
  });

  it('stores a connection as failing when the third party is unavailable, or unverified on request', async () => {
    const down = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: httpBody('Flaky API', '/status/503'),
    });
    expect(down.status).toBe(201);
    expect(down.body.status).toBe('failing');
    expect(down.body.statusReason).toContain('503');
    await waitFor(() =>
      received.find((e) => e.type === 'connection.failing' && e.data.connectionId === down.body.id),
    );
    const skipped = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: { ...slackBody('Unverified', OTHER_TOKEN), verify: false },
    });
    expect(skipped.status).toBe(201);
    expect(skipped.body).toMatchObject({ status: 'active', lastTestedAt: null });
  });

  it('refuses a duplicate name, and replays an Idempotency-Key', async () => {
    const dup = await h.api(orgA, 'POST', '/api/v1/connections', { body: slackBody('Team Slack') });
    expect(dup.status).toBe(409);
    // Names are per organization.
    const inB = await h.api(orgB, 'POST', '/api/v1/connections', { body: slackBody('Team Slack') });
    expect(inB.status).toBe(201);
    const headers = { 'idempotency-key': 'create-once-1' };
    const first = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: httpBody('Idem', '/ping'),
      headers,
    });
    const again = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: httpBody('Idem', '/ping'),
      headers,
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const other = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: httpBody('Idem 2', '/ping'),
      headers,
    });
    expect(other.status).toBe(409);
    const record = await raw.collection('idempotency_keys').findOne({});
    expect(JSON.stringify(record)).not.toContain('http-secret-token');
  });

  it('lists with filters and paging, newest first', async () => {
    const all = await h.api(orgA, 'GET', '/api/v1/connections', { role: 'viewer' });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(4);
    expect(all.body.items[0].name).toBe('Idem');
    expect(all.text).not.toContain('http-secret-token');
    const slack = await h.api(orgA, 'GET', '/api/v1/connections?integrationId=slack');
    expect(slack.body.items.map((c: any) => c.name).sort()).toEqual(['Team Slack', 'Unverified']);
    const failing = await h.api(orgA, 'GET', '/api/v1/connections?status=failing');
    expect(failing.body.items.map((c: any) => c.name)).toEqual(['Flaky API']);
    const page = await h.api(orgA, 'GET', '/api/v1/connections?pageSize=3');
    expect(page.body).toMatchObject({ total: 4, totalPages: 2 });
    const next = await h.api(orgA, 'GET', `/api/v1/connections?pageSize=3&cursor=${page.body.nextCursor}`);
    expect(next.body.items.map((c: any) => c.name)).toEqual(['Team Slack']);
    const bad = await h.api(orgA, 'GET', '/api/v1/connections?status=broken');
    expect(bad.status).toBe(400);
  });

  it('keeps organizations apart on every route', async () => {
    const listB = await h.api(orgB, 'GET', '/api/v1/connections');
    expect(listB.body.items.map((c: any) => c.name)).toEqual(['Team Slack']);
    expect(listB.body.items[0].id).not.toBe(slackId);
    const path = `/api/v1/connections/${slackId}`;
    expect((await h.api(orgB, 'GET', path)).status).toBe(404);
    expect((await h.api(orgB, 'PATCH', path, { body: { name: 'Mine now' } })).status).toBe(404);
    expect((await h.api(orgB, 'POST', `${path}/test`)).status).toBe(404);
    expect((await h.api(orgB, 'DELETE', path)).status).toBe(404);
    const stillA = await h.api(orgA, 'GET', path);
    expect(stillA.body.name).toBe('Team Slack');
  });

  it('lets viewers read but not write', async () => {
    const path = `/api/v1/connections/${slackId}`;
    expect((await h.api(orgA, 'GET', path, { role: 'viewer' })).status).toBe(200);
    const writes = await Promise.all([
      h.api(orgA, 'POST', '/api/v1/connections', { role: 'viewer', body: slackBody('Viewer made') }),
      h.api(orgA, 'PATCH', path, { role: 'viewer', body: { name: 'Renamed' } }),
      h.api(orgA, 'POST', `${path}/test`, { role: 'viewer' }),
      h.api(orgA, 'DELETE', path, { role: 'viewer' }),
    ]);
    expect(writes.map((r) => r.status)).toEqual([403, 403, 403, 403]);
    const developer = await h.api(orgA, 'PATCH', path, { role: 'developer', body: { name: 'Slack (team)' } });
    expect(developer.status).toBe(200);
    expect(developer.body.name).toBe('Slack (team)');
  });

  it('replaces credentials and settings after verifying them', async () => {
    const path = `/api/v1/connections/${slackId}`;
    const rejected = await h.api(orgA, 'PATCH', path, {
      body: { credentials: { authKind: 'bearer', botToken: OTHER_TOKEN } },
    });
    expect(rejected.status).toBe(400);
    const before = await raw.collection('connections').findOne({ _id: slackId as never });
    const ok = await h.api(orgA, 'PATCH', path, {
      body: { credentials: { botToken: SLACK_BOT_TOKEN }, settings: { defaultChannel: 'C2' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      settings: { defaultChannel: 'C2' },
      status: 'active',
      authKind: 'bearer',
    });
    const after = await raw.collection('connections').findOne({ _id: slackId as never });
    expect(after!.credentialsSealed).not.toBe(before!.credentialsSealed);
    const badSettings = await h.api(orgA, 'PATCH', path, { body: { settings: { defaultChannel: 5 } } });
    expect(badSettings.body.errors.map((e: any) => e.field)).toEqual(['settings.defaultChannel']);
    const empty = await h.api(orgA, 'PATCH', path, { body: {} });
    expect(empty.status).toBe(400);
    const taken = await h.api(orgA, 'PATCH', path, { body: { name: 'Flaky API' } });
    expect(taken.status).toBe(409);
    const both = await h.api(orgA, 'PATCH', path, {
      body: { status: 'revoked', credentials: { botToken: SLACK_BOT_TOKEN } },
    });
    expect(both.body.errors.map((e: any) => e.field)).toEqual(['status']);
  });

  it('tests a connection and records the outcome in its status', async () => {
    const created = await h.api(orgA, 'POST', '/api/v1/connections', { body: httpBody('Test me', '/ping') });
    const path = `/api/v1/connections/${created.body.id}`;
    const good = await h.api(orgA, 'POST', `${path}/test`);
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ ok: true, verified: true, connection: { status: 'active' } });
    // Settings changed without verification, then the test fails: failing with the reason, one event.
    await h.api(orgA, 'PATCH', path, {
      body: { settings: { baseUrl: `${h.fake.url}/rest/api`, testPath: '/status/401' }, verify: false },
    });
    const bad = await h.api(orgA, 'POST', `${path}/test`);
    expect(bad.body).toMatchObject({ ok: false, verified: true, connection: { status: 'failing' } });
    expect(bad.body.message).toContain('rejected');
    expect(bad.body.connection.statusReason).toBe(bad.body.message);
    await waitFor(() =>
      received.find((e) => e.type === 'connection.failing' && e.data.connectionId === created.body.id),
    );
    await h.api(orgA, 'POST', `${path}/test`);
    expect(
      received.filter((e) => e.type === 'connection.failing' && e.data.connectionId === created.body.id),
    ).toHaveLength(1);
    await h.api(orgA, 'PATCH', path, {
      body: { settings: { baseUrl: `${h.fake.url}/rest/api`, testPath: '/ping' }, verify: false },
    });
    const back = await h.api(orgA, 'POST', `${path}/test`);
    expect(back.body).toMatchObject({ ok: true, connection: { status: 'active', statusReason: null } });
    // An integration without a test call says so.
    const hook = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: { integrationId: 'webhook', name: 'Hook', credentials: { url: `${h.fake.url}/hook/in` } },
    });
    const untested = await h.api(orgA, 'POST', `/api/v1/connections/${hook.body.id}/test`);
    expect(untested.body).toMatchObject({ ok: true, verified: false, connection: { lastTestedAt: null } });
  });

  it('revokes: credentials erased, unusable until new ones are given', async () => {
    const path = `/api/v1/connections/${slackId}`;
    const revoked = await h.api(orgA, 'PATCH', path, { body: { status: 'revoked' } });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: 'revoked' });
    const doc = await raw.collection('connections').findOne({ _id: slackId as never });
    expect(doc).toMatchObject({ credentialsSealed: null, keyId: null });
    await waitFor(() =>
      received.find((e) => e.type === 'connection.revoked' && e.data.connectionId === slackId),
    );
    expect((await h.api(orgA, 'POST', `${path}/test`)).status).toBe(409);
    const run = await h.rpc('svc.integration.run-action', {
      orgId: orgA,
      connectionId: slackId,
      action: 'chat.postMessage',
      input: { text: 'hi' },
    });
    expect(run).toMatchObject({ ok: false, error: { kind: 'conflict', retryable: false } });
    const needsCredentials = await h.api(orgA, 'PATCH', path, {
      body: { settings: { defaultChannel: 'C3' } },
    });
    expect(needsCredentials.body.errors.map((e: any) => e.field)).toEqual(['credentials']);
    const renewed = await h.api(orgA, 'PATCH', path, {
      body: { credentials: { botToken: SLACK_BOT_TOKEN } },
    });
    expect(renewed.body).toMatchObject({ status: 'active' });
  });

  it('deletes a connection and its credentials', async () => {
    const path = `/api/v1/connections/${slackId}`;
    const res = await h.api(orgA, 'DELETE', path);
    expect(res.status).toBe(204);
    expect((await h.api(orgA, 'GET', path)).status).toBe(404);
    expect((await h.api(orgA, 'DELETE', path)).status).toBe(404);
    expect(await raw.collection('connections').findOne({ _id: slackId as never })).toBeNull();
    await waitFor(() =>
      received.find((e) => e.type === 'connection.deleted' && e.data.connectionId === slackId),
    );
  });

  it('never wrote a credential to its log', async () => {
    const log = readFileSync(h.service.logFile, 'utf8');
    expect(log.length).toBeGreaterThan(0);
    for (const secret of [SLACK_BOT_TOKEN, OTHER_TOKEN, 'http-secret-token'])
      expect(log).not.toContain(secret);
  });
});
