import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { executionRpc } from '@platform/contracts';
import { NotFoundError, rpcRequest } from '@platform/kit';
import { caller, createWorkflow, execute, startEngine, waitForStatus, type Engine } from './support.ts';

/** svc.execution.get over real NATS: the organization's execution as GET /executions/{id} has it. */
describe('svc.execution.get', () => {
  let engine: Engine;
  let nc: NatsConnection;
  const me = caller();
  const other = caller();

  beforeAll(async () => {
    engine = await startEngine();
    nc = await connect({ servers: engine.infra.nats.url });
  });
  afterAll(async () => {
    await nc?.close();
    await engine?.dispose();
  });

  it('answers an execution of the organization, unknown ids and other organizations are not found', async () => {
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'rpc get',
      steps: [{ id: 'sum', type: 'transform', settings: { expression: '{"total": input.a + input.b}' } }],
    });
    const started = await execute(me, engine.workflow.url, wf.id, { a: 2, b: 3 });
    const early = await rpcRequest(nc, executionRpc.get, { orgId: me.orgId, executionId: started.id });
    expect(early).toMatchObject({ id: started.id, workflowId: wf.id, input: { a: 2, b: 3 } });

    const done = await waitForStatus(me, engine.execution.url, started.id, ['succeeded']);
    const read = await rpcRequest(nc, executionRpc.get, { orgId: me.orgId, executionId: started.id });
    expect(read).toMatchObject({ status: 'succeeded', output: { total: 5 } });
    expect(read).toEqual(done); // the same view as GET /executions/{id}

    await expect(
      rpcRequest(nc, executionRpc.get, { orgId: me.orgId, executionId: 'exe_does_not_exist' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      rpcRequest(nc, executionRpc.get, { orgId: other.orgId, executionId: started.id }),
    ).rejects.toBeInstanceOf(NotFoundError);
    // Over HTTP the other organization gets the same 404.
    const http = await other.call('GET', `${engine.execution.url}/api/v1/executions/${started.id}`);
    expect(http.status).toBe(404);
    // A request that is not one is refused by the service (validation), not answered.
    const bad = nc.request(executionRpc.get.subject, JSON.stringify({ orgId: me.orgId }));
    const envelope = (await bad).json<{ ok: boolean; error?: { kind: string } }>();
    expect(envelope).toMatchObject({ ok: false, error: { kind: 'validation' } });
  });
});
