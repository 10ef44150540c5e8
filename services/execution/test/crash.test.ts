import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceProcess } from '@platform/testing';
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
describe('durability: kill -9', () => {
  let engine: Engine;
  let fake: FakeServer;
  let holdK2 = true;
  const me = caller();
  const hits = (prefix: string, id: string) => fake.hits.get(`/${prefix}/${id}`) ?? 0;

  beforeAll(async () => {
    engine = await startEngine();
    fake = await fakeServer(async (req, res) => {
      if (req.url?.startsWith('/k2/') && holdK2) {
        await new Promise((r) => setTimeout(r, 60_000)); // held until its caller dies
        return;
      }
      json(res, 200, { path: req.url });
    });
  });
  afterAll(async () => {
    await fake?.close();
    await engine?.dispose();
  });

  it('after kill -9 mid-step another replica resumes at that step; completed steps ran exactly once', async () => {
    const replicaA = engine.execution; // the only replica so far
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'crash in the middle',
      steps: [
        { id: 'k1', type: 'http', settings: { url: `${fake.url}/k1/{{ execution.id }}` } },
        {
          id: 'k2',
          type: 'http',
          timeoutMs: 120_000,
          settings: { url: `${fake.url}/k2/{{ execution.id }}` },
        },
        { id: 'k3', type: 'http', settings: { url: `${fake.url}/k3/{{ execution.id }}` } },
      ],
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await execute(me, engine.workflow.url, wf.id)).id);
    // Only replica A runs: every execution is now inside step k2 on A.
    await waitFor('every execution in step k2', async () =>
      ids.every((id) => hits('k2', id) === 1) ? true : undefined,
    );
    const replicaB: ServiceProcess = await engine.startExecution();
    holdK2 = false;
    await replicaA.kill();
    for (const id of ids) {
      const done = await waitForStatus(me, replicaB.url, id, ['succeeded', 'failed'], 40_000);
      expect(done.status).toBe('succeeded');
      expect(done.steps.map((s: any) => s.attempts)).toEqual([1, 2, 1]);
      expect(hits('k1', id)).toBe(1); // completed before the crash: never again
      expect(hits('k2', id)).toBe(2); // interrupted by the crash: run again
      expect(hits('k3', id)).toBe(1);
      const logs = await me.call('GET', `${replicaB.url}/api/v1/executions/${id}/logs`);
      expect(logs.body.items.some((l: any) => /interrupted/.test(l.message))).toBe(true);
    }
    engine.execution = replicaB;
  });
});
