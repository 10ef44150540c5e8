import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '@platform/testing';
import { caller, startEngine, waitForStatus, type Engine } from '../../execution/test/support.ts';

const steps = [
  { id: 'a', type: 'transform', settings: { expression: '{"x": input.x}' } },
  { id: 'b', type: 'transform', name: 'Double', settings: { expression: 'steps.a.output.x * 2' } },
];

/** /api/v1/workflows: CRUD, validation, versions, execute with Idempotency-Key, roles, tenants. */
describe('workflows API', () => {
  let engine: Engine;
  const me = caller();
  const other = caller();
  const viewer = caller(me.orgId, 'viewer');
  const base = () => `${engine.workflow.url}/api/v1/workflows`;

  beforeAll(async () => {
    engine = await startEngine();
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  it('creates, reads and lists workflows with filters and paging', async () => {
    const created = await me.call('POST', base(), {
      name: 'Orders sync',
      description: 'd',
      trigger: 'manual',
      steps,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Orders sync',
      trigger: 'manual',
      version: 1,
      active: true,
      steps,
    });
    expect(created.body.id).toMatch(/^wf_/);
    const hook = await me.call('POST', base(), {
      name: 'Inbound hook',
      trigger: 'webhook',
      steps,
      active: false,
    });
    expect(hook.body.webhook.url).toBe(`/api/v1/hooks/${hook.body.id}`);
    expect(hook.body.webhook.secret).toMatch(/^whs_/);
    const got = await me.call('GET', `${base()}/${hook.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.webhook).toEqual({ url: `/api/v1/hooks/${hook.body.id}` }); // the secret is never shown again
    const all = await me.call('GET', base());
    expect(all.body).toMatchObject({ total: 2, page: 1, pageSize: 50 });
    expect(all.body.items.map((w: any) => w.name)).toEqual(['Inbound hook', 'Orders sync']);
    expect((await me.call('GET', `${base()}?search=ORDERS`)).body.items.map((w: any) => w.name)).toEqual([
      'Orders sync',
    ]);
    expect((await me.call('GET', `${base()}?trigger=webhook`)).body.total).toBe(1);
    expect((await me.call('GET', `${base()}?active=false`)).body.items[0].name).toBe('Inbound hook');
    expect((await me.call('GET', `${base()}?pageSize=1&page=2`)).body.items[0].name).toBe('Orders sync');
    expect((await me.call('GET', `${base()}?foo=1`)).status).toBe(400);
  });

  it('validates definitions, naming the step and field', async () => {
    const res = await me.call('POST', base(), {
      name: 'bad',
      trigger: 'schedule',
      triggerConfig: { cron: 'not a cron' },
      steps: [
        { id: 'a', type: 'transform', settings: { expression: '$$$ (' } },
        { id: 'b', type: 'http', settings: { url: 'https://x/{{ ) }}' }, next: 'a' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => e.field)).toEqual(['steps.1.next']);
    const exprs = await me.call('POST', base(), {
      name: 'bad',
      trigger: 'schedule',
      triggerConfig: { cron: 'not a cron', timezone: 'Europe/Paris' },
      steps: [
        { id: 'a', type: 'transform', settings: { expression: '$$$ (' } },
        { id: 'b', type: 'http', settings: { url: 'https://x/{{ ) }}' } },
      ],
    });
    expect(exprs.status).toBe(400);
    expect(exprs.body.errors.map((e: any) => e.field).sort()).toEqual(
      ['steps.0.settings.expression', 'steps.1.settings.url', 'triggerConfig.cron'].sort(),
    );
    const shape = await me.call('POST', base(), {
      name: '',
      trigger: 'sometimes',
      steps: [{ id: '1x', type: 'http', settings: {} }],
    });
    expect(shape.status).toBe(400);
    const fields = shape.body.errors.map((e: any) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['name', 'trigger', 'steps.0.id', 'steps.0.settings.url']));
    const zone = await me.call('POST', base(), {
      name: 'tz',
      trigger: 'schedule',
      triggerConfig: { cron: '0 9 * * *', timezone: 'Mars/Base' },
      steps,
    });
    expect(zone.body.errors.map((e: any) => e.field)).toEqual(['triggerConfig.timezone']);
    const event = await me.call('POST', base(), { name: 'e', trigger: 'event', triggerConfig: {}, steps });
    expect(event.body.errors.map((e: any) => e.field)).toEqual(['triggerConfig.type']);
  });

  it('PUT makes a new version; executions record the version they ran', async () => {
    const wf = (await me.call('POST', base(), { name: 'versioned', trigger: 'manual', steps })).body;
    const v1 = await me.call('POST', `${base()}/${wf.id}/execute`, { input: { x: 2 } });
    const put = await me.call('PUT', `${base()}/${wf.id}`, {
      name: 'versioned',
      trigger: 'manual',
      steps: [{ id: 'a', type: 'transform', settings: { expression: 'input.x + 100' } }],
    });
    expect(put.status).toBe(200);
    expect(put.body.version).toBe(2);
    const v2 = await me.call('POST', `${base()}/${wf.id}/execute`, { input: { x: 2 } });
    const r1 = await waitForStatus(me, engine.execution.url, v1.body.id, ['succeeded', 'failed']);
    const r2 = await waitForStatus(me, engine.execution.url, v2.body.id, ['succeeded', 'failed']);
    expect([r1.workflowVersion, r1.output]).toEqual([1, 4]);
    expect([r2.workflowVersion, r2.output]).toEqual([2, 102]);
    const bad = await me.call('PUT', `${base()}/${wf.id}`, { name: 'x', trigger: 'manual' });
    expect(bad.status).toBe(400);
    expect(
      (await me.call('PUT', `${base()}/wf_missing`, { name: 'x', trigger: 'manual', steps })).status,
    ).toBe(404);
  });

  it('execute answers 202 with the execution; Idempotency-Key returns the first one, other input is a 409', async () => {
    const wf = (await me.call('POST', base(), { name: 'idem', trigger: 'manual', steps })).body;
    const key = { 'idempotency-key': `key-${Date.now()}` };
    const a = await me.call('POST', `${base()}/${wf.id}/execute`, { input: { x: 1 } }, key);
    expect(a.status).toBe(202);
    expect(a.body).toMatchObject({ workflowId: wf.id, input: { x: 1 } });
    // The execution as it is when answered: usually queued; a fast runner may already have run it.
    expect(['queued', 'running', 'succeeded']).toContain(a.body.status);
    const b = await me.call('POST', `${base()}/${wf.id}/execute`, { input: { x: 1 } }, key);
    expect(b.status).toBe(202);
    expect(b.body.id).toBe(a.body.id);
    const c = await me.call('POST', `${base()}/${wf.id}/execute`, { input: { x: 2 } }, key);
    expect(c.status).toBe(409);
    const list = await me.call('GET', `${engine.execution.url}/api/v1/executions?workflowId=${wf.id}`);
    expect(list.body.total).toBe(1);
    expect((await me.call('POST', `${base()}/${wf.id}/execute`, {})).status).toBe(202);
  });

  it('DELETE: gone from the API, new executions refused', async () => {
    const wf = (await me.call('POST', base(), { name: 'doomed', trigger: 'manual', steps })).body;
    expect((await me.call('DELETE', `${base()}/${wf.id}`)).status).toBe(204);
    expect((await me.call('GET', `${base()}/${wf.id}`)).status).toBe(404);
    expect((await me.call('POST', `${base()}/${wf.id}/execute`, {})).status).toBe(404);
    expect((await me.call('DELETE', `${base()}/${wf.id}`)).status).toBe(404);
    expect((await me.call('GET', base())).body.items.some((w: any) => w.id === wf.id)).toBe(false);
  });

  it('viewers read but may not create, change, delete or execute', async () => {
    const wf = (await me.call('POST', base(), { name: 'ro', trigger: 'manual', steps })).body;
    expect((await viewer.call('GET', `${base()}/${wf.id}`)).status).toBe(200);
    expect((await viewer.call('POST', base(), { name: 'v', trigger: 'manual', steps })).status).toBe(403);
    expect(
      (await viewer.call('PUT', `${base()}/${wf.id}`, { name: 'v', trigger: 'manual', steps })).status,
    ).toBe(403);
    expect((await viewer.call('DELETE', `${base()}/${wf.id}`)).status).toBe(403);
    expect((await viewer.call('POST', `${base()}/${wf.id}/execute`, {})).status).toBe(403);
  });

  it('isolates organizations on every route', async () => {
    const wf = (await me.call('POST', base(), { name: 'mine', trigger: 'manual', steps })).body;
    expect((await other.call('GET', base())).body.total).toBe(0);
    expect((await other.call('GET', `${base()}/${wf.id}`)).status).toBe(404);
    expect(
      (await other.call('PUT', `${base()}/${wf.id}`, { name: 'x', trigger: 'manual', steps })).status,
    ).toBe(404);
    expect((await other.call('POST', `${base()}/${wf.id}/execute`, {})).status).toBe(404);
    expect((await other.call('DELETE', `${base()}/${wf.id}`)).status).toBe(404);
    expect((await me.call('GET', `${base()}/${wf.id}`)).body.name).toBe('mine');
    expect((await http('GET', base())).status).toBe(401);
  });
});
