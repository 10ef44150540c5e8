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

/**
 * The engine's promises: a delay survives a restart of the execution service, and after a kill -9
 * in the middle of a step another replica resumes at that step; steps that had completed never run
 * again (hits counted on a local server).
 */
describe('durability: restarts', () => {
  let engine: Engine;
  let fake: FakeServer;
  const me = caller();
  const hits = (prefix: string, id: string) => fake.hits.get(`/${prefix}/${id}`) ?? 0;

  beforeAll(async () => {
    engine = await startEngine();
    fake = await fakeServer((req, res) => {
      json(res, 200, { path: req.url });
    });
  });
  afterAll(async () => {
    await fake?.close();
    await engine?.dispose();
  });

  it('a delay step survives a restart of the execution service', async () => {
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'sleep through a restart',
      steps: [
        { id: 'before', type: 'http', settings: { url: `${fake.url}/before/{{ execution.id }}` } },
        { id: 'nap', type: 'delay', settings: { durationMs: 3000 } },
        { id: 'after', type: 'http', settings: { url: `${fake.url}/after/{{ execution.id }}` } },
      ],
    });
    const ex = await execute(me, engine.workflow.url, wf.id);
    await waitFor('the delay to start', async () => {
      const r = await me.call('GET', `${engine.execution.url}/api/v1/executions/${ex.id}`);
      return r.body.steps?.[1]?.status === 'waiting' ? true : undefined;
    });
    await engine.execution.stop();
    await new Promise((r) => setTimeout(r, 500));
    const restarted = await engine.startExecution();
    const done = await waitForStatus(me, restarted.url, ex.id, ['succeeded', 'failed']);
    expect(done.status).toBe('succeeded');
    expect(hits('before', ex.id)).toBe(1);
    expect(hits('after', ex.id)).toBe(1);
    expect(
      new Date(done.steps[2].startedAt).getTime() - new Date(done.steps[1].startedAt).getTime(),
    ).toBeGreaterThanOrEqual(2900);
    engine.execution = restarted;
  });

  it('a graceful stop hands running executions to another replica after the current step', async () => {
    const replicaB = engine.execution; // the restarted replica
    const replicaC = await engine.startExecution();
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'handover',
      steps: [
        { id: 'g1', type: 'http', settings: { url: `${fake.url}/g1/{{ execution.id }}` } },
        { id: 'nap', type: 'delay', settings: { durationMs: 200 } },
        { id: 'g2', type: 'http', settings: { url: `${fake.url}/g2/{{ execution.id }}` } },
      ],
    });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await execute(me, engine.workflow.url, wf.id)).id);
    await replicaB.stop();
    for (const id of ids) {
      expect((await waitForStatus(me, replicaC.url, id, ['succeeded', 'failed'])).status).toBe('succeeded');
      expect(hits('g1', id)).toBe(1);
      expect(hits('g2', id)).toBe(1);
    }
    engine.execution = replicaC;
  });
});
