import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** Retries with backoff, timeouts, cancellation and the per-workflow concurrency limit. */
describe('retries, timeouts, cancellation, concurrency', () => {
  let engine: Engine;
  let fake: FakeServer;
  let inFlight = 0;
  let maxInFlight = 0;
  const me = caller();
  const flaky = new Map<string, number>();

  beforeAll(async () => {
    engine = await startEngine();
    fake = await fakeServer(async (req, res) => {
      const url = req.url ?? '/';
      if (url.startsWith('/flaky/')) {
        // Fails twice with a 503, then succeeds.
        const n = (flaky.get(url) ?? 0) + 1;
        flaky.set(url, n);
        return n <= 2 ? json(res, 503, { n }) : json(res, 200, { n });
      }
      if (url.startsWith('/slow')) {
        const params = new URL(url, 'http://x').searchParams;
        const ms = Number(params.get('ms') ?? 2000);
        const counted = params.get('count') === '1';
        if (counted) inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, ms));
        if (counted) inFlight--;
        if (!res.destroyed) json(res, 200, { slept: ms });
        return;
      }
      json(res, 200, { ok: true });
    });
  });
  afterAll(async () => {
    await fake?.close();
    await engine?.dispose();
  });

  const logsOf = async (id: string) =>
    (await me.call('GET', `${engine.execution.url}/api/v1/executions/${id}/logs`)).body.items as any[];

  it('retries a failing step with exponential backoff, visible in the logs', async () => {
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'flaky',
      steps: [
        {
          id: 'call',
          type: 'http',
          settings: { url: `${fake.url}/flaky/{{ execution.id }}` },
          retry: { maxAttempts: 4, initialIntervalMs: 400, backoffCoefficient: 2, jitter: 0 },
        },
      ],
    });
    const ex = await execute(me, engine.workflow.url, wf.id);
    const done = await waitForStatus(me, engine.execution.url, ex.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(done.steps[0].attempts).toBe(3);
    const logs = await logsOf(ex.id);
    const retries = logs.filter((l) => /retrying in/.test(l.message));
    expect(retries.map((l) => l.data.delayMs)).toEqual([400, 800]);
    expect(retries.map((l) => l.data.kind)).toEqual(['http_server_error', 'http_server_error']);
    const starts = logs
      .filter((l) => l.message === `attempt ${l.attempt} started`)
      .map((l) => Date.parse(l.timestamp));
    expect(starts).toHaveLength(3);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(390);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(790);
  });

  it('gives up after maxAttempts, and does not retry non-retryable kinds', async () => {
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'always failing',
      steps: [
        {
          id: 'call',
          type: 'http',
          settings: { url: `${fake.url}/flaky/{{ execution.id }}` },
          retry: { maxAttempts: 2, initialIntervalMs: 100 },
        },
      ],
    });
    const done = await waitForStatus(
      me,
      engine.execution.url,
      (await execute(me, engine.workflow.url, wf.id)).id,
      ['succeeded', 'failed'],
    );
    expect(done.status).toBe('failed');
    expect(done.steps[0]).toMatchObject({
      status: 'failed',
      attempts: 2,
      error: { kind: 'http_server_error', status: 503 },
    });
    const never = await createWorkflow(me, engine.workflow.url, {
      name: 'no retry',
      steps: [
        {
          id: 'call',
          type: 'http',
          settings: { url: `${fake.url}/flaky/{{ execution.id }}` },
          retry: { maxAttempts: 5, initialIntervalMs: 100, nonRetryable: ['http_server_error'] },
        },
      ],
    });
    const once = await waitForStatus(
      me,
      engine.execution.url,
      (await execute(me, engine.workflow.url, never.id)).id,
      ['succeeded', 'failed'],
    );
    expect(once.steps[0].attempts).toBe(1);
  });

  it('fails a step that runs past its timeout, and an execution past its own', async () => {
    const step = await createWorkflow(me, engine.workflow.url, {
      name: 'step timeout',
      steps: [
        {
          id: 'slow',
          type: 'http',
          timeoutMs: 300,
          retry: { maxAttempts: 1 },
          settings: { url: `${fake.url}/slow?ms=3000` },
        },
      ],
    });
    const a = await waitForStatus(
      me,
      engine.execution.url,
      (await execute(me, engine.workflow.url, step.id)).id,
      ['succeeded', 'failed'],
    );
    expect(a.status).toBe('failed');
    expect(a.error).toMatchObject({ kind: 'timeout', stepId: 'slow' });
    const whole = await createWorkflow(me, engine.workflow.url, {
      name: 'execution timeout',
      timeoutMs: 1000,
      steps: [
        { id: 'nap', type: 'delay', settings: { durationMs: 5000 } },
        { id: 'never', type: 'transform', settings: { expression: '1' } },
      ],
    });
    const b = await waitForStatus(
      me,
      engine.execution.url,
      (await execute(me, engine.workflow.url, whole.id)).id,
      ['succeeded', 'failed'],
    );
    expect(b.status).toBe('failed');
    expect(b.error.kind).toBe('timeout');
    expect(b.error.message).toMatch(/execution timed out/);
    expect(b.steps.map((s: any) => s.status)).toEqual(['failed', 'skipped']);
  });

  it('cancels a running execution at once: the step in progress is aborted', async () => {
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'long call',
      steps: [
        { id: 'slow', type: 'http', timeoutMs: 60_000, settings: { url: `${fake.url}/slow?ms=20000` } },
        { id: 'after', type: 'transform', settings: { expression: '1' } },
      ],
    });
    const ex = await execute(me, engine.workflow.url, wf.id);
    await waitFor('the slow call', async () => ((fake.hits.get('/slow') ?? 0) > 0 ? true : undefined));
    await waitForStatus(me, engine.execution.url, ex.id, ['running']);
    const started = Date.now();
    const cancel = await me.call('POST', `${engine.execution.url}/api/v1/executions/${ex.id}/cancel`);
    expect(cancel.status).toBe(202);
    expect(cancel.body.cancelRequested).toBe(true);
    const done = await waitForStatus(me, engine.execution.url, ex.id, ['cancelled', 'succeeded', 'failed']);
    expect(done.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(done.steps.map((s: any) => s.status)).toEqual(['cancelled', 'skipped']);
    expect(done.error.kind).toBe('cancelled');
    const again = await me.call('POST', `${engine.execution.url}/api/v1/executions/${ex.id}/cancel`);
    expect(again.status).toBe(409);
  });

  it('cancels an execution parked in a long delay', async () => {
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'long delay',
      steps: [{ id: 'nap', type: 'delay', settings: { durationMs: 3_600_000 } }],
    });
    const ex = await execute(me, engine.workflow.url, wf.id);
    await waitFor('the delay to start', async () => {
      const r = await me.call('GET', `${engine.execution.url}/api/v1/executions/${ex.id}`);
      return r.body.steps[0].status === 'waiting' ? r.body : undefined;
    });
    expect((await me.call('POST', `${engine.execution.url}/api/v1/executions/${ex.id}/cancel`)).status).toBe(
      202,
    );
    const done = await waitForStatus(me, engine.execution.url, ex.id, ['cancelled']);
    expect(done.steps[0].status).toBe('cancelled');
  });

  it('runs at most concurrencyLimit executions of a workflow at once; the others wait queued', async () => {
    maxInFlight = 0;
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'one at a time',
      concurrencyLimit: 1,
      steps: [{ id: 'slow', type: 'http', settings: { url: `${fake.url}/slow?ms=700&count=1` } }],
    });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await execute(me, engine.workflow.url, wf.id)).id);
    const queuedSeen = await waitFor('one running and others queued', async () => {
      const list = await me.call('GET', `${engine.execution.url}/api/v1/executions?workflowId=${wf.id}`);
      const statuses = list.body.items.map((e: any) => e.status);
      return statuses.includes('queued') && statuses.filter((s: string) => s === 'running').length === 1
        ? statuses
        : undefined;
    });
    expect(queuedSeen).toHaveLength(3);
    for (const id of ids)
      expect((await waitForStatus(me, engine.execution.url, id, ['succeeded', 'failed'])).status).toBe(
        'succeeded',
      );
    expect(maxInFlight).toBe(1);
  });
});
