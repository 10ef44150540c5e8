import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caller, startEngine, waitForStatus, type Engine } from '../../execution/test/support.ts';

const steps = [{ id: 'echo', type: 'transform', settings: { expression: 'input' } }];

/** Schedule triggers: a cron with a time zone; exactly one execution per tick across replicas. */
describe('schedule trigger', () => {
  let engine: Engine;
  const me = caller();
  const base = () => `${engine.workflow.url}/api/v1/workflows`;
  const executionsOf = async (workflowId: string) =>
    (await me.call('GET', `${engine.execution.url}/api/v1/executions?workflowId=${workflowId}&pageSize=200`))
      .body;

  beforeAll(async () => {
    engine = await startEngine();
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  it('two workflow replicas produce exactly one execution per tick', async () => {
    await engine.startWorkflow(); // a second replica with its own scheduler
    const wf = (
      await me.call('POST', base(), {
        name: 'every second',
        trigger: 'schedule',
        triggerConfig: { cron: '* * * * * *', timezone: 'Europe/Paris', input: { ping: true } },
        steps,
      })
    ).body;
    expect(wf.nextRunAt).toBeTruthy();
    await new Promise((r) => setTimeout(r, 5_000));
    await me.call('PUT', `${base()}/${wf.id}`, {
      name: 'every second',
      trigger: 'schedule',
      triggerConfig: { cron: '* * * * * *' },
      steps,
      active: false,
    });
    await new Promise((r) => setTimeout(r, 1_000));
    const list = await executionsOf(wf.id);
    const ticks = list.items.map((e: any) => e.trigger.scheduledFor);
    expect(list.total).toBeGreaterThanOrEqual(3);
    expect(new Set(ticks).size).toBe(ticks.length); // no tick ran twice
    for (const e of list.items) {
      const done = await waitForStatus(me, engine.execution.url, e.id, ['succeeded', 'failed']);
      expect(done.output).toEqual({ ping: true });
      expect(done.trigger.kind).toBe('schedule');
    }
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await executionsOf(wf.id)).total).toBe(list.total); // inactive: no more ticks
  });
});
