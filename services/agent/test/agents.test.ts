import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startInfra, startServiceProcess, type ServiceProcess, type TestInfra } from '@platform/testing';
import { as, eventually, newOrg, rulesAgent } from './support.ts';

/** Agent definitions: validation, versions, archive, list and search, roles, tenant isolation, events. */
describe('agents', () => {
  let infra: TestInfra;
  let agent: ServiceProcess;
  let nc: NatsConnection;
  const events: Array<{ subject: string; data: any }> = [];
  const orgA = newOrg();
  const orgB = newOrg();

  beforeAll(async () => {
    infra = await startInfra();
    agent = await startServiceProcess('agent', infra.env);
    nc = await connect({ servers: infra.nats.url });
    nc.subscribe('evt.agent.>', {
      callback: (_e, m) => void events.push({ subject: m.subject, data: m.json() }),
    });
  });
  afterAll(async () => {
    await nc?.close();
    await agent?.stop();
    await infra?.dispose();
  });

  const api = (
    org: string,
    method: string,
    path: string,
    body?: unknown,
    role?: 'viewer' | 'developer' | 'owner',
  ) => as(agent.url, org, method, path, { body, role });

  it('creates an agent with defaults filled in, at version 1, and tells the event stream', async () => {
    const res = await api(orgA, 'POST', '/agents', { name: 'Support bot' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Support bot',
      description: '',
      provider: { kind: 'local', rules: [] },
      model: null,
      temperature: 0.7,
      maxTokens: 1024,
      greeting: null,
      channels: ['Web', 'Phone', 'Telegram', 'WhatsApp', 'Mobile SDK', 'SIP'],
      sessionTypes: ['chat'],
      idleTimeoutSeconds: 1800,
      tools: [],
      maxTurns: 100,
      version: 1,
      status: 'active',
      archivedAt: null,
    });
    expect(res.body.id).toMatch(/^agt_[0-9a-f]{32}$/);
    const got = await api(orgA, 'GET', `/agents/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    const event = await eventually(3_000, async () =>
      events.find((e) => e.subject === 'evt.agent.created' && e.data.data.agentId === res.body.id),
    );
    expect(event.data).toMatchObject({
      type: 'agent.created',
      orgId: orgA,
      data: { name: 'Support bot', version: 1 },
    });
  });

  it('refuses an invalid configuration with one 400 naming every bad field', async () => {
    const res = await api(orgA, 'POST', '/agents', {
      name: '',
      temperature: 3,
      channels: ['Fax'],
      idleTimeoutSeconds: 0,
      tools: [
        { type: 'end_session' },
        { type: 'workflow', name: 'bad name!', description: 'x', workflowId: 'wf' },
        { type: 'end_session', name: 'end_session' },
      ],
      provider: {
        kind: 'local',
        rules: [{ match: { any: ['x'] }, tool: { name: 'missing' } }, { match: {} }],
      },
      surprise: true,
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    for (const field of [
      'name',
      'temperature',
      'channels.0',
      'idleTimeoutSeconds',
      'tools.1.name',
      'surprise',
    ]) {
      expect(fields).toContain(field);
    }
    const other = await api(orgA, 'POST', '/agents', {
      name: 'x',
      tools: [{ type: 'end_session' }, { type: 'end_session', name: 'end_session' }],
      provider: {
        kind: 'local',
        rules: [{ match: { any: ['x'] }, tool: { name: 'missing' } }, { match: {} }],
      },
    });
    expect(other.status).toBe(400);
    const otherFields = other.body.errors.map((e: { field: string }) => e.field);
    expect(otherFields).toEqual(
      expect.arrayContaining(['tools.1.name', 'tools', 'provider.rules.0.tool.name', 'provider.rules.1']),
    );
    expect((await api(orgA, 'POST', '/agents', { name: 'x', provider: { kind: 'gpt' } })).status).toBe(400);
  });

  it('updates as new versions, keeps every version readable, and skips no-op updates', async () => {
    const created = (await api(orgA, 'POST', '/agents', rulesAgent('Versioned'))).body;
    const v2 = await api(orgA, 'PUT', `/agents/${created.id}`, {
      systemPrompt: 'Be brief.',
      greeting: 'Hi!',
    });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({
      version: 2,
      systemPrompt: 'Be brief.',
      greeting: 'Hi!',
      name: 'Versioned',
    });
    expect(v2.body.provider).toEqual(created.provider);
    const same = await api(orgA, 'PUT', `/agents/${created.id}`, { greeting: 'Hi!' });
    expect(same.body.version).toBe(2);
    const stale = await api(orgA, 'PUT', `/agents/${created.id}`, { name: 'Renamed', expectedVersion: 1 });
    expect(stale.status).toBe(409);
    const v3 = await api(orgA, 'PUT', `/agents/${created.id}`, { name: 'Renamed', expectedVersion: 2 });
    expect(v3.body).toMatchObject({ version: 3, name: 'Renamed' });
    const bad = await api(orgA, 'PUT', `/agents/${created.id}`, { maxTurns: 0, tools: [{ type: 'nope' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(
      expect.arrayContaining(['maxTurns']),
    );
    const removesTool = await api(orgA, 'PUT', `/agents/${created.id}`, { tools: [] });
    expect(removesTool.status).toBe(400); // the "bye" rule calls end_session
    expect(removesTool.body.errors[0].field).toBe('provider.rules.1.tool.name');

    const versions = await api(orgA, 'GET', `/agents/${created.id}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body).toMatchObject({ total: 3, page: 1 });
    expect(versions.body.items.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    const first = await api(orgA, 'GET', `/agents/${created.id}/versions/1`);
    expect(first.body).toMatchObject({
      version: 1,
      agentId: created.id,
      config: { name: 'Versioned', greeting: null },
    });
    expect((await api(orgA, 'GET', `/agents/${created.id}/versions/9`)).status).toBe(404);
    expect((await api(orgA, 'GET', `/agents/${created.id}/versions/x`)).status).toBe(400);
    await eventually(
      3_000,
      async () =>
        events.filter((e) => e.subject === 'evt.agent.updated' && e.data.data.agentId === created.id)
          .length === 2,
    );
  });

  it('serializes concurrent updates into consecutive versions', async () => {
    const created = (await api(orgA, 'POST', '/agents', { name: 'Busy' })).body;
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => api(orgA, 'PUT', `/agents/${created.id}`, { description: `change ${n}` })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.map((r) => r.body.version).sort()).toEqual([2, 3, 4, 5]);
    const versions = await api(orgA, 'GET', `/agents/${created.id}/versions?pageSize=10`);
    expect(versions.body.total).toBe(5);
  });

  it('archives: still readable, no further changes, listed by status', async () => {
    const created = (await api(orgA, 'POST', '/agents', { name: 'Old timer' })).body;
    const archived = await api(orgA, 'POST', `/agents/${created.id}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ status: 'archived', version: 1 });
    expect(archived.body.archivedAt).toBeTruthy();
    expect((await api(orgA, 'POST', `/agents/${created.id}/archive`)).body.status).toBe('archived');
    expect((await api(orgA, 'GET', `/agents/${created.id}`)).body.status).toBe('archived');
    expect((await api(orgA, 'PUT', `/agents/${created.id}`, { name: 'x' })).status).toBe(409);
    const archivedList = await api(orgA, 'GET', '/agents?status=archived');
    expect(archivedList.body.items.map((a: { id: string }) => a.id)).toContain(created.id);
    const activeList = await api(orgA, 'GET', '/agents?status=active&pageSize=200');
    expect(activeList.body.items.map((a: { id: string }) => a.id)).not.toContain(created.id);
    await eventually(3_000, async () =>
      events.find(
        (e) =>
          e.subject === 'evt.agent.updated' &&
          e.data.data.agentId === created.id &&
          e.data.data.status === 'archived',
      ),
    );
  });

  it('lists newest first with totals, pages and a case-insensitive name search', async () => {
    const org = newOrg();
    for (const name of ['Alpha Sales', 'Beta Support', 'Gamma sales (EU)', 'Delta [v2]']) {
      expect((await api(org, 'POST', '/agents', { name })).status).toBe(201);
    }
    const all = await api(org, 'GET', '/agents?pageSize=3');
    expect(all.body).toMatchObject({ total: 4, page: 1, pageSize: 3, totalPages: 2 });
    expect(all.body.items.map((a: { name: string }) => a.name)).toEqual([
      'Delta [v2]',
      'Gamma sales (EU)',
      'Beta Support',
    ]);
    expect(all.body.items[0]).toMatchObject({
      providerKind: 'local',
      toolCount: 0,
      version: 1,
      status: 'active',
    });
    const next = await api(org, 'GET', `/agents?pageSize=3&cursor=${all.body.nextCursor}`);
    expect(next.body.items.map((a: { name: string }) => a.name)).toEqual(['Alpha Sales']);
    const search = await api(org, 'GET', '/agents?search=SALES');
    expect(search.body.items.map((a: { name: string }) => a.name).sort()).toEqual([
      'Alpha Sales',
      'Gamma sales (EU)',
    ]);
    expect((await api(org, 'GET', '/agents?search=%5Bv2%5D')).body.total).toBe(1);
    expect((await api(org, 'GET', '/agents?search=.*')).body.total).toBe(0);
    expect((await api(org, 'GET', '/agents?status[$ne]=x')).status).toBe(400);
    expect((await api(org, 'GET', '/agents?pageSize=500')).status).toBe(400);
  });

  it('lets viewers read but not write', async () => {
    const created = (await api(orgA, 'POST', '/agents', { name: 'Readable' })).body;
    expect((await api(orgA, 'GET', `/agents/${created.id}`, undefined, 'viewer')).status).toBe(200);
    expect((await api(orgA, 'GET', '/agents', undefined, 'viewer')).status).toBe(200);
    expect((await api(orgA, 'POST', '/agents', { name: 'x' }, 'viewer')).status).toBe(403);
    expect((await api(orgA, 'PUT', `/agents/${created.id}`, { name: 'x' }, 'viewer')).status).toBe(403);
    expect((await api(orgA, 'POST', `/agents/${created.id}/archive`, undefined, 'viewer')).status).toBe(403);
    expect((await api(orgA, 'POST', '/agents', { name: 'Dev made' }, 'developer')).status).toBe(201);
  });

  it('keeps organizations apart on every route', async () => {
    const created = (await api(orgA, 'POST', '/agents', { name: 'Secret A' })).body;
    expect((await api(orgB, 'GET', `/agents/${created.id}`)).status).toBe(404);
    expect((await api(orgB, 'PUT', `/agents/${created.id}`, { name: 'stolen' })).status).toBe(404);
    expect((await api(orgB, 'POST', `/agents/${created.id}/archive`)).status).toBe(404);
    expect((await api(orgB, 'GET', `/agents/${created.id}/versions`)).status).toBe(404);
    expect((await api(orgB, 'GET', `/agents/${created.id}/versions/1`)).status).toBe(404);
    expect(
      (await api(orgB, 'POST', `/agents/${created.id}/invoke`, { message: 'hi', channel: 'Web' })).status,
    ).toBe(404);
    const sessionId = '3f2a9c1e-7b4d-4e8a-9c2f-1d3e5a7b9c0d';
    expect(
      (await api(orgB, 'POST', `/agents/${created.id}/sessions/${sessionId}/end`, { status: 'cancelled' }))
        .status,
    ).toBe(404);
    const list = await api(orgB, 'GET', '/agents?pageSize=200');
    expect(list.body.items.map((a: { id: string }) => a.id)).not.toContain(created.id);
    expect((await api(orgA, 'GET', `/agents/${created.id}`)).body.name).toBe('Secret A');
  });

  it('honours Idempotency-Key on create', async () => {
    const headers = { 'idempotency-key': `create-${orgA}` };
    const first = await as(agent.url, orgA, 'POST', '/agents', { body: { name: 'Once' }, headers });
    const again = await as(agent.url, orgA, 'POST', '/agents', { body: { name: 'Once' }, headers });
    expect(first.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const other = await as(agent.url, orgA, 'POST', '/agents', { body: { name: 'Twice' }, headers });
    expect(other.status).toBe(409);
  });

  it('answers 401 without the internal identity and 404 for unknown agents', async () => {
    const res = await fetch(`${agent.url}/api/v1/agents`);
    expect(res.status).toBe(401);
    expect((await api(orgA, 'GET', '/agents/agt_missing')).status).toBe(404);
  });
});
