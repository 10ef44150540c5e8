import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionQueue, type ExecutionRunMessage } from '@platform/contracts';
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

/**
 * The runner takes a new execution's first delivery without reading storage: these tests cover the
 * cases where that shortcut must still be right (the creator never stored the document; a cancel
 * requested before any replica took the execution, seen by a replica started after the request).
 */
describe('engine: first delivery and cancel mirror', () => {
  let engine: Engine;
  let fake: FakeServer;
  let nc: NatsConnection;
  const me = caller();
  const hits = (prefix: string, id: string) => fake.hits.get(`/${prefix}/${id}`) ?? 0;

  beforeAll(async () => {
    engine = await startEngine();
    fake = await fakeServer((req, res) => json(res, 200, { path: req.url }));
    nc = await connect({ servers: engine.infra.env.NATS_URL });
  });
  afterAll(async () => {
    await nc?.close();
    await fake?.close();
    await engine?.dispose();
  });

  it.each([
    ['just created', 0],
    ['created long ago (a backlog)', 10_000],
  ])('runs and stores an execution its creator never stored: %s', async (_label, ageMs) => {
    const id = `exe_${randomUUID().replace(/-/g, '')}`;
    const events: string[] = [];
    const sub = nc.subscribe(`evt.execution.*`, {
      callback: (_err, msg) => {
        const e = msg.json<{ data: { executionId: string; status: string } }>();
        if (e.data.executionId === id) events.push(e.data.status);
      },
    });
    const message: ExecutionRunMessage = {
      executionId: id,
      orgId: me.orgId,
      create: {
        id,
        orgId: me.orgId,
        workflow: {
          workflowId: `wf_${randomUUID().slice(0, 8)}`,
          name: 'orphaned work message',
          version: 1,
          steps: [
            { id: 'shape', type: 'transform', settings: { expression: '{"n": input.n + 1}' } },
            {
              id: 'call',
              type: 'http',
              settings: { method: 'GET', url: `${fake.url}/orphan/${id}`, failOnHttpError: true },
            },
          ],
        },
        input: { n: 41 },
        trigger: { kind: 'manual' },
        createdAt: new Date(Date.now() - ageMs).toISOString(),
      },
    };
    await jetstream(nc).publish(executionQueue.runSubject(id), JSON.stringify(message), { msgID: id });

    const done = await waitForStatus(me, engine.execution.url, id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(done.steps.map((s: { status: string }) => s.status)).toEqual(['succeeded', 'succeeded']);
    expect(hits('orphan', id)).toBe(1);
    const logs = await me.call('GET', `${engine.execution.url}/api/v1/executions/${id}/logs`);
    expect(logs.body.items.length).toBeGreaterThan(0);
    // The replica that stored it announced `queued` before `running`, and the end once.
    await waitFor('the terminal event', async () => (events.includes('succeeded') ? true : undefined));
    expect(events).toEqual(['queued', 'running', 'succeeded']);
    sub.unsubscribe();
    // Another organization still cannot see it.
    expect((await caller().call('GET', `${engine.execution.url}/api/v1/executions/${id}`)).status).toBe(404);
  });

  it('a cancel requested while an execution waits for a slot holds on a replica started after it', async () => {
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'one at a time, second cancelled',
      concurrencyLimit: 1,
      steps: [
        { id: 'nap', type: 'delay', settings: { durationMs: 2_500 } },
        { id: 'hit', type: 'http', settings: { url: `${fake.url}/slot/{{ execution.id }}` } },
      ],
    });
    const first = await execute(me, engine.workflow.url, wf.id);
    await waitForStatus(me, engine.execution.url, first.id, ['running']);
    const second = await execute(me, engine.workflow.url, wf.id);
    const cancel = await me.call('POST', `${engine.execution.url}/api/v1/executions/${second.id}/cancel`);
    expect(cancel.status).toBe(202);
    expect(cancel.body.cancelRequested).toBe(true);

    // The first replica leaves; the one started after the request takes both executions over.
    const late = await engine.startExecution();
    await engine.execution.stop();
    const cancelled = await waitForStatus(me, late.url, second.id, ['cancelled', 'succeeded', 'failed']);
    expect(cancelled.status).toBe('cancelled');
    expect(hits('slot', second.id)).toBe(0);
    const finished = await waitForStatus(me, late.url, first.id, ['succeeded', 'failed', 'cancelled']);
    expect(finished.status).toBe('succeeded');
    expect(hits('slot', first.id)).toBe(1);
  });
});
