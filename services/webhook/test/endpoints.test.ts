import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startInfra, type ServiceProcess, type TestInfra } from '@platform/testing';
import { client, EventPublisher, orgId, startWebhook, waitFor } from './helpers.ts';

/** Registration, validation, roles, tenant isolation, the event catalog and the recent events. */
describe('webhook endpoints API', () => {
  let infra: TestInfra;
  let svc: ServiceProcess;
  let events: EventPublisher;
  const orgA = orgId();
  const orgB = orgId();
  let a: ReturnType<typeof client>;
  let b: ReturnType<typeof client>;
  let viewerA: ReturnType<typeof client>;
  const url = 'https://hooks.example.com/receive';

  beforeAll(async () => {
    infra = await startInfra();
    svc = await startWebhook(infra);
    events = await EventPublisher.connect(infra.nats.url);
    a = client(svc.url, orgA);
    b = client(svc.url, orgB);
    viewerA = client(svc.url, orgA, 'viewer');
  });
  afterAll(async () => {
    await events?.close();
    await svc?.stop();
    await infra?.dispose();
  });

  it('registers an endpoint and shows its secret once', async () => {
    const created = await a.post('/webhooks', { url, events: ['session.started', 'execution.failed'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url,
      events: ['session.started', 'execution.failed'],
      enabled: true,
      description: null,
      disabledReason: null,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const id = created.body.id;
    const one = await a.get(`/webhooks/${id}`);
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();
    expect(JSON.stringify(one.body)).not.toContain('whsec_');
    const list = await a.get('/webhooks?pageSize=10');
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
  });

  it('answers 400 naming each bad field', async () => {
    const missing = await a.post('/webhooks', {});
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['events', 'url']);

    const bad = await a.post('/webhooks', {
      url: 'ftp://example.com/x',
      events: ['session.started', 'nope.nothing'],
      extra: 1,
    });
    expect(bad.status).toBe(400);
    const fields = bad.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['events.1', 'extra']));

    const scheme = await a.post('/webhooks', { url: 'ftp://example.com/x', events: ['*'] });
    expect(scheme.status).toBe(400);
    expect(scheme.body.errors[0].field).toBe('url');

    const empty = await a.post('/webhooks', { url, events: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].field).toBe('events');

    const ping = await a.post('/webhooks', { url, events: ['webhook.ping'] });
    expect(ping.status).toBe(400);

    const query = await a.get('/webhooks?status[$ne]=x');
    expect(query.status).toBe(400);
    const page = await a.get('/webhooks?pageSize=1000');
    expect(page.status).toBe(400);
  });

  it('refuses private addresses unless ALLOW_PRIVATE_NETWORK', async () => {
    // A second replica with the production default, its own database, stopped right after (it
    // shares this file's NATS consumers, and nothing is delivered meanwhile).
    const strict = await startWebhook(infra, { ALLOW_PRIVATE_NETWORK: 'false', MONGO_DB: 'webhook_strict' });
    const c = client(strict.url, orgA);
    for (const target of [
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://10.1.2.3/x',
      'http://[::1]/x',
    ]) {
      const res = await c.post('/webhooks', { url: target, events: ['*'] });
      expect(res.status, target).toBe(400);
      expect(res.body.errors[0].field).toBe('url');
    }
    expect((await c.post('/webhooks', { url, events: ['*'] })).status).toBe(201);
    await strict.stop();
    // The local test service allows them (receivers on 127.0.0.1).
    expect((await a.post('/webhooks', { url: 'http://127.0.0.1:9/x', events: ['*'] })).status).toBe(201);
  });

  it('changes, disables and deletes an endpoint', async () => {
    const { body } = await a.post('/webhooks', { url, events: ['*'], description: 'mine' });
    const patched = await a.patch(`/webhooks/${body.id}`, {
      events: ['workflow.created', 'workflow.created', 'session.message'],
      description: null,
      enabled: false,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      events: ['workflow.created', 'session.message'],
      description: null,
      enabled: false,
      disabledReason: 'manual',
    });
    const star = await a.patch(`/webhooks/${body.id}`, {
      events: ['*', 'session.started', 'session.message'],
    });
    expect(star.body.events).toEqual(['*', 'session.message']);
    const enabled = await a.patch(`/webhooks/${body.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null });
    expect((await a.patch(`/webhooks/${body.id}`, { url: 'nope' })).status).toBe(400);
    expect((await a.delete(`/webhooks/${body.id}`)).status).toBe(204);
    expect((await a.get(`/webhooks/${body.id}`)).status).toBe(404);
    expect((await a.delete(`/webhooks/${body.id}`)).status).toBe(404);
  });

  it('rotates the secret: a new one is shown once', async () => {
    const { body } = await a.post('/webhooks', { url, events: ['*'] });
    const rotated = await a.post(`/webhooks/${body.id}/rotate-secret`, { gracePeriodSeconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(body.secret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt)).toBeGreaterThan(Date.now() + 3_000_000);
    const after = await a.get(`/webhooks/${body.id}`);
    expect(after.body.secretRotatedAt).not.toBeNull();
    expect(JSON.stringify(after.body)).not.toContain('whsec_');
    const bad = await a.post(`/webhooks/${body.id}/rotate-secret`, { gracePeriodSeconds: -1 });
    expect(bad.status).toBe(400);
  });

  it('honours Idempotency-Key on create, with the same secret again', async () => {
    const headers = { 'idempotency-key': `k-${orgA}` };
    const first = await a.post('/webhooks', { url, events: ['*'] }, headers);
    const again = await a.post('/webhooks', { url, events: ['*'] }, headers);
    expect(first.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const other = await a.post('/webhooks', { url, events: ['session.started'] }, headers);
    expect(other.status).toBe(409);
  });

  it('lets viewers read but not write', async () => {
    const { body } = await a.post('/webhooks', { url, events: ['*'] });
    expect((await viewerA.get('/webhooks')).status).toBe(200);
    expect((await viewerA.get(`/webhooks/${body.id}`)).status).toBe(200);
    expect((await viewerA.get(`/webhooks/${body.id}/deliveries`)).status).toBe(200);
    expect((await viewerA.get('/events')).status).toBe(200);
    expect((await viewerA.post('/webhooks', { url, events: ['*'] })).status).toBe(403);
    expect((await viewerA.patch(`/webhooks/${body.id}`, { enabled: false })).status).toBe(403);
    expect((await viewerA.post(`/webhooks/${body.id}/rotate-secret`, {})).status).toBe(403);
    expect((await viewerA.post(`/webhooks/${body.id}/test`)).status).toBe(403);
    expect((await viewerA.post(`/webhooks/${body.id}/deliveries/dlv_x/replay`)).status).toBe(403);
    expect((await viewerA.delete(`/webhooks/${body.id}`)).status).toBe(403);
    const developer = client(svc.url, orgA, 'developer');
    expect((await developer.post('/webhooks', { url, events: ['*'] })).status).toBe(201);
  });

  it('keeps organizations apart on every route', async () => {
    const { body } = await a.post('/webhooks', { url, events: ['*'] });
    const id = body.id;
    expect((await b.get(`/webhooks/${id}`)).status).toBe(404);
    expect((await b.patch(`/webhooks/${id}`, { enabled: false })).status).toBe(404);
    expect((await b.post(`/webhooks/${id}/rotate-secret`, {})).status).toBe(404);
    expect((await b.post(`/webhooks/${id}/test`)).status).toBe(404);
    expect((await b.get(`/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await b.post(`/webhooks/${id}/deliveries/dlv_x/replay`)).status).toBe(404);
    expect((await b.delete(`/webhooks/${id}`)).status).toBe(404);
    const listB = await b.get('/webhooks');
    expect(listB.body.items.map((e: { id: string }) => e.id)).not.toContain(id);
    expect((await a.get(`/webhooks/${id}`)).body.enabled).toBe(true);

    const event = await events.publish(orgA, 'workflow.created', { workflowId: 'wf_1', name: 'A' });
    await waitFor(async () => (await a.get(`/events/${event.id}`)).status === 200);
    expect((await b.get(`/events/${event.id}`)).status).toBe(404);
    const eventsB = await b.get('/events');
    expect(eventsB.body.items.map((e: { id: string }) => e.id)).not.toContain(event.id);
  });

  it('lists recent events, paged and by type', async () => {
    const org = orgId();
    const c = client(svc.url, org);
    const sent = [];
    for (let i = 0; i < 5; i++)
      sent.push(await events.publish(org, 'execution.succeeded', { executionId: `ex_${i}` }));
    sent.push(
      await events.publish(org, 'session.started', { sessionId: 's1', agentId: 'a1', status: 'Active' }),
    );
    await waitFor(async () => (await c.get('/events')).body.total === 6);
    const page = await c.get('/events?pageSize=4');
    expect(page.body).toMatchObject({ total: 6, page: 1, pageSize: 4, totalPages: 2 });
    expect(page.body.items[0]).toEqual(sent[5]);
    const next = await c.get(`/events?pageSize=4&cursor=${page.body.nextCursor}`);
    expect(next.body.items).toHaveLength(2);
    const byType = await c.get('/events?type=session.started');
    expect(byType.body.items).toEqual([sent[5]]);
  });

  it('serves the event catalog with a JSON Schema per type', async () => {
    const res = await viewerA.get('/event-types');
    expect(res.status).toBe(200);
    const types = res.body.items.map((t: { type: string }) => t.type);
    for (const t of [
      'session.started',
      'session.completed',
      'session.failed',
      'session.cancelled',
      'session.message',
      'execution.queued',
      'execution.running',
      'execution.succeeded',
      'execution.failed',
      'execution.cancelled',
      'workflow.created',
      'workflow.updated',
      'workflow.deleted',
      'agent.created',
      'agent.updated',
      'connection.failing',
      'webhook.disabled',
      'webhook.ping',
    ]) {
      expect(types).toContain(t);
    }
    const message = res.body.items.find((t: { type: string }) => t.type === 'session.message');
    expect(message.optIn).toBe(true);
    const started = res.body.items.find((t: { type: string }) => t.type === 'session.started');
    expect(started.optIn).toBe(false);
    expect(started.schema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['id', 'type', 'createdAt', 'orgId', 'data']),
      properties: { type: { const: 'session.started' }, data: { type: 'object' } },
    });
  });

  it('refuses calls that did not come through the gateway', async () => {
    expect((await http('GET', `${svc.url}/api/v1/webhooks`)).status).toBe(401);
  });
});
