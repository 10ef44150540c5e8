import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  caller,
  createWorkflow,
  execute,
  startEngine,
  waitFor,
  type Engine,
} from '../../execution/test/support.ts';

/**
 * The execute paths keep workflows in memory (WORKFLOW_CACHE_TTL_MS). A change made at one replica
 * must reach what another replica runs through the workflow's event, well before the cache's own
 * expiry (set here to a minute, so that only the event can explain the change).
 */
describe('workflows: execute-path cache across replicas', () => {
  let engine: Engine;
  let replicaB: string;
  const me = caller();
  const other = caller();

  beforeAll(async () => {
    engine = await startEngine({ WORKFLOW_CACHE_TTL_MS: '60000' });
    replicaB = (await engine.startWorkflow()).url;
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  const definition = (name: string, expression: string) => ({
    name,
    steps: [{ id: 'only', type: 'transform', settings: { expression } }],
  });

  it('an update at replica A is what replica B runs next; a delete there is refused at B', async () => {
    const wf = await createWorkflow(me, engine.workflow.url, definition('cached', '"v1"'));
    const first = await execute(me, replicaB, wf.id); // B has it in memory from now on
    expect(first.workflowVersion).toBe(1);
    // Another organization is refused at B even with the workflow in B's memory.
    const foreign = await other.call('POST', `${replicaB}/api/v1/workflows/${wf.id}/execute`, { input: {} });
    expect(foreign.status).toBe(404);

    const put = await me.call('PUT', `${engine.workflow.url}/api/v1/workflows/${wf.id}`, {
      ...definition('cached', '"v2"'),
      trigger: 'manual',
      active: true,
    });
    expect(put.status).toBe(200);
    const seenAt = Date.now();
    const next = await waitFor(
      'replica B to run version 2',
      async () => {
        const ex = await execute(me, replicaB, wf.id);
        return ex.workflowVersion === 2 ? ex : undefined;
      },
      5_000,
    );
    expect(next.workflowVersion).toBe(2);
    expect(Date.now() - seenAt).toBeLessThan(5_000);

    const del = await me.call('DELETE', `${engine.workflow.url}/api/v1/workflows/${wf.id}`);
    expect(del.status).toBe(204);
    const refused = await waitFor(
      'replica B to refuse the deleted workflow',
      async () => {
        const r = await me.call('POST', `${replicaB}/api/v1/workflows/${wf.id}/execute`, { input: {} });
        return r.status === 404 ? r : undefined;
      },
      5_000,
    );
    expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
  });
});
