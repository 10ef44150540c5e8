import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '@platform/testing';
import {
  caller,
  createWorkflow,
  execute,
  fakeServer,
  json,
  startEngine,
  waitFor,
  waitForStatus,
  type Engine,
  type FakeServer,
} from './support.ts';

/** /api/v1/executions: list, details, logs, retry, cancel, roles, tenant isolation and retention. */
describe('executions API', () => {
  let engine: Engine;
  let fake: FakeServer;
  let failing = true;
  const me = caller();
  const other = caller();
  const viewer = caller(me.orgId, 'viewer');
  let wf: any;
  let failed: any;
  let ok: any;
  const url = () => engine.execution.url;

  beforeAll(async () => {
    engine = await startEngine();
    fake = await fakeServer((req, res) => {
      if (req.url?.startsWith('/gate'))
        return failing ? json(res, 500, { down: true }) : json(res, 200, { up: true });
      json(res, 200, { ok: true });
    });
    wf = await createWorkflow(me, engine.workflow.url, {
      name: 'gated',
      steps: [
        { id: 'first', type: 'http', settings: { url: `${fake.url}/first/{{ execution.id }}` } },
        { id: 'gate', type: 'http', retry: { maxAttempts: 1 }, settings: { url: `${fake.url}/gate` } },
        { id: 'last', type: 'transform', settings: { expression: '"done"' } },
      ],
    });
    failed = await waitForStatus(me, url(), (await execute(me, engine.workflow.url, wf.id, { n: 1 })).id, [
      'failed',
    ]);
    const simple = await createWorkflow(me, engine.workflow.url, {
      name: 'simple',
      steps: [{ id: 'one', type: 'transform', settings: { expression: 'input.n' } }],
    });
    ok = await waitForStatus(me, url(), (await execute(me, engine.workflow.url, simple.id, { n: 2 })).id, [
      'succeeded',
    ]);
  });
  afterAll(async () => {
    await fake?.close();
    await engine?.dispose();
  });

  it('lists executions newest first with total, filters and paging', async () => {
    const all = await me.call('GET', `${url()}/api/v1/executions`);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(2);
    expect(all.body.pageSize).toBe(50);
    expect(all.body.items.map((e: any) => e.id)).toEqual([ok.id, failed.id]);
    expect(all.body.items[0]).not.toHaveProperty('steps');
    const byStatus = await me.call('GET', `${url()}/api/v1/executions?status=failed`);
    expect(byStatus.body.items.map((e: any) => e.id)).toEqual([failed.id]);
    const byWorkflow = await me.call('GET', `${url()}/api/v1/executions?workflowId=${wf.id}`);
    expect(byWorkflow.body.total).toBe(1);
    const from = encodeURIComponent(ok.createdAt);
    const recent = await me.call('GET', `${url()}/api/v1/executions?startedFrom=${from}`);
    expect(recent.body.items.map((e: any) => e.id)).toEqual([ok.id]);
    const before = await me.call('GET', `${url()}/api/v1/executions?startedTo=${from}`);
    expect(before.body.items.map((e: any) => e.id)).toEqual([failed.id]);
    const page2 = await me.call('GET', `${url()}/api/v1/executions?pageSize=1&page=2`);
    expect(page2.body).toMatchObject({ total: 2, page: 2, totalPages: 2 });
    expect(page2.body.items.map((e: any) => e.id)).toEqual([failed.id]);
    const bad = await me.call('GET', `${url()}/api/v1/executions?status=weird&status[$ne]=x`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.field)).toEqual(
      expect.arrayContaining(['status', 'status[$ne]']),
    );
  });

  it('details: status, input, error, each step with attempts and timings, the version', async () => {
    const res = await me.call('GET', `${url()}/api/v1/executions/${failed.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'failed',
      workflowId: wf.id,
      workflowVersion: 1,
      input: { n: 1 },
      error: { kind: 'http_server_error', stepId: 'gate' },
      trigger: { kind: 'manual' },
    });
    expect(res.body.steps.map((s: any) => [s.id, s.status, s.attempts])).toEqual([
      ['first', 'succeeded', 1],
      ['gate', 'failed', 1],
      ['last', 'skipped', 0],
    ]);
    expect(res.body.steps[0].durationMs).toBeGreaterThanOrEqual(0);
    expect((await me.call('GET', `${url()}/api/v1/executions/exe_nope`)).status).toBe(404);
  });

  it('logs: ordered lines with level and timestamp, paged', async () => {
    const res = await me.call('GET', `${url()}/api/v1/executions/${failed.id}/logs`);
    expect(res.status).toBe(200);
    const seqs = res.body.items.map((l: any) => l.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(res.body.items.at(-1)).toMatchObject({
      level: 'error',
      message: expect.stringMatching(/execution failed/),
    });
    expect(res.body.items.find((l: any) => l.stepId === 'gate' && l.level === 'error')).toBeTruthy();
    const page = await me.call('GET', `${url()}/api/v1/executions/${failed.id}/logs?pageSize=2&page=2`);
    expect(page.body.items.map((l: any) => l.seq)).toEqual([3, 4]);
    expect(page.body.total).toBe(res.body.total);
  });

  it('retry from the failed step keeps earlier outputs; links both ways; only failed or cancelled', async () => {
    failing = false;
    const res = await me.call('POST', `${url()}/api/v1/executions/${failed.id}/retry`, {
      from: 'failed-step',
    });
    expect(res.status).toBe(202);
    expect(res.body.retryOf).toBe(failed.id);
    expect(res.body.trigger.kind).toBe('retry');
    const done = await waitForStatus(me, url(), res.body.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(done.steps[0]).toMatchObject({ status: 'succeeded', reusedFrom: failed.id });
    expect(fake.hits.get(`/first/${failed.id}`)).toBe(1);
    expect(fake.hits.get(`/first/${done.id}`)).toBeUndefined(); // not run again
    const old = await me.call('GET', `${url()}/api/v1/executions/${failed.id}`);
    expect(old.body.retriedBy).toEqual([res.body.id]);
    const notFailed = await me.call('POST', `${url()}/api/v1/executions/${ok.id}/retry`, {});
    expect(notFailed.status).toBe(409);
  });

  it('retry from the start with the latest version runs everything again', async () => {
    const put = await me.call('PUT', `${engine.workflow.url}/api/v1/workflows/${wf.id}`, {
      name: 'gated v2',
      trigger: 'manual',
      steps: [
        { id: 'first', type: 'http', settings: { url: `${fake.url}/first/{{ execution.id }}` } },
        { id: 'last', type: 'transform', settings: { expression: '"v2"' } },
      ],
    });
    expect(put.body.version).toBe(2);
    const res = await me.call('POST', `${url()}/api/v1/executions/${failed.id}/retry`, {
      from: 'start',
      version: 'latest',
    });
    expect(res.status).toBe(202);
    const done = await waitForStatus(me, url(), res.body.id, ['succeeded', 'failed']);
    expect(done).toMatchObject({ status: 'succeeded', workflowVersion: 2, output: 'v2' });
    expect(fake.hits.get(`/first/${done.id}`)).toBe(1);
    const same = await me.call('POST', `${url()}/api/v1/executions/${failed.id}/retry`, { version: 'same' });
    expect((await waitForStatus(me, url(), same.body.id, ['succeeded', 'failed'])).workflowVersion).toBe(1);
    const old = await me.call('GET', `${url()}/api/v1/executions/${failed.id}`);
    expect(old.body.retriedBy).toHaveLength(3);
  });

  it('retry honours Idempotency-Key', async () => {
    const key = { 'idempotency-key': `k-${Date.now()}` };
    const a = await me.call('POST', `${url()}/api/v1/executions/${failed.id}/retry`, { from: 'start' }, key);
    const b = await me.call('POST', `${url()}/api/v1/executions/${failed.id}/retry`, { from: 'start' }, key);
    expect(b.body.id).toBe(a.body.id);
    const c = await me.call(
      'POST',
      `${url()}/api/v1/executions/${failed.id}/retry`,
      { from: 'failed-step' },
      key,
    );
    expect(c.status).toBe(409);
  });

  it('viewers read but may not retry or cancel', async () => {
    expect((await viewer.call('GET', `${url()}/api/v1/executions/${failed.id}`)).status).toBe(200);
    expect((await viewer.call('POST', `${url()}/api/v1/executions/${failed.id}/retry`, {})).status).toBe(403);
    expect((await viewer.call('POST', `${url()}/api/v1/executions/${failed.id}/cancel`)).status).toBe(403);
  });

  it('isolates organizations on every route', async () => {
    const list = await other.call('GET', `${url()}/api/v1/executions`);
    expect(list.body.total).toBe(0);
    for (const [method, path] of [
      ['GET', `/api/v1/executions/${failed.id}`],
      ['GET', `/api/v1/executions/${failed.id}/logs`],
      ['POST', `/api/v1/executions/${failed.id}/retry`],
      ['POST', `/api/v1/executions/${failed.id}/cancel`],
    ] as const) {
      const res = await other.call(method, `${url()}${path}`, method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const noToken = await http('GET', `${url()}/api/v1/executions`);
    expect(noToken.status).toBe(401);
  });

  it('a deleted workflow runs no more: retry is refused, running executions finish', async () => {
    const slowWf = await createWorkflow(me, engine.workflow.url, {
      name: 'to delete',
      steps: [
        { id: 'nap', type: 'delay', settings: { durationMs: 1500 } },
        {
          id: 'gate',
          type: 'http',
          retry: { maxAttempts: 1 },
          settings: { url: `${fake.url}/after-delete/{{ execution.id }}` },
        },
      ],
    });
    const running = await execute(me, engine.workflow.url, slowWf.id);
    const del = await me.call('DELETE', `${engine.workflow.url}/api/v1/workflows/${slowWf.id}`);
    expect(del.status).toBe(204);
    const done = await waitForStatus(me, url(), running.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    const cancelled = await createWorkflow(me, engine.workflow.url, {
      name: 'cancel then delete',
      steps: [{ id: 'nap', type: 'delay', settings: { durationMs: 600_000 } }],
    });
    const ex = await execute(me, engine.workflow.url, cancelled.id);
    await me.call('POST', `${url()}/api/v1/executions/${ex.id}/cancel`);
    await waitForStatus(me, url(), ex.id, ['cancelled']);
    await me.call('DELETE', `${engine.workflow.url}/api/v1/workflows/${cancelled.id}`);
    const retry = await me.call('POST', `${url()}/api/v1/executions/${ex.id}/retry`, {});
    expect(retry.status).toBe(409);
    expect(retry.body.detail).toMatch(/deleted/);
  });

  it('the retention job deletes finished executions older than the configured age', async () => {
    const before = (await me.call('GET', `${url()}/api/v1/executions`)).body.total;
    expect(before).toBeGreaterThan(0);
    await engine.startExecution({
      EXECUTION_RETENTION_DAYS: String(1 / 86_400),
      HOUSEKEEPING_INTERVAL_MS: '500',
    });
    await waitFor('old executions to be deleted', async () => {
      const list = await me.call('GET', `${url()}/api/v1/executions`);
      return list.body.total === 0 ? true : undefined;
    });
  });
});
