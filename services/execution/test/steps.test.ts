import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { agentStepRpc, integrationRpc } from '@platform/contracts';
import { createLogger, NotFoundError, serveRpc } from '@platform/kit';
import {
  caller,
  createWorkflow,
  execute,
  fakeServer,
  json,
  startEngine,
  waitForStatus,
  type Engine,
  type FakeServer,
} from './support.ts';

/** Every step type against real local servers (HTTP, and NATS responders standing in for services). */
describe('step types', () => {
  let engine: Engine;
  let fake: FakeServer;
  let nc: NatsConnection;
  let agentNc: NatsConnection;
  const me = caller();
  const run = async (steps: unknown[], input: unknown = {}, extra: Record<string, unknown> = {}) => {
    const wf = await createWorkflow(me, engine.workflow.url, { name: 'steps', steps, ...extra });
    const ex = await execute(me, engine.workflow.url, wf.id, input);
    return waitForStatus(me, engine.execution.url, ex.id, ['succeeded', 'failed', 'cancelled']);
  };

  beforeAll(async () => {
    engine = await startEngine();
    fake = await fakeServer((req, res, body) => {
      if (req.url?.startsWith('/echo')) {
        return json(res, 200, {
          method: req.method,
          url: req.url,
          auth: req.headers['x-auth'] ?? null,
          body: body ? JSON.parse(body) : null,
        });
      }
      if (req.url?.startsWith('/text')) {
        res.setHeader('content-type', 'text/plain');
        return res.end('plain text');
      }
      if (req.url?.startsWith('/missing')) return json(res, 404, { error: 'nope' });
      if (req.url?.startsWith('/big')) return json(res, 200, { data: 'x'.repeat(300_000) });
      json(res, 200, { ok: true });
    });
    nc = await connect({ servers: engine.infra.nats.url });
    agentNc = await connect({ servers: engine.infra.nats.url });
    const logger = createLogger('fake', 'silent');
    serveRpc(
      agentNc,
      agentStepRpc.invoke,
      async (req) => {
        if (req.agentId === 'agt_missing') throw new NotFoundError('Agent not found');
        return {
          sessionId: req.sessionId ?? 'ses_1',
          reply: `you said: ${req.message}`,
          output: { from: req.source.stepId },
        };
      },
      { queue: 'agent', logger },
    );
    serveRpc(
      nc,
      integrationRpc.runAction,
      async (req) => ({
        output: { echoed: req.input, action: req.action },
        connectionId: req.connectionId,
        integrationId: 'slack',
        action: req.action,
        durationMs: 3,
      }),
      { queue: 'integration', logger },
    );
  });
  afterAll(async () => {
    await agentNc?.close();
    await nc?.close();
    await fake?.close();
    await engine?.dispose();
  });

  it('http: method, query, headers and a JSON body from earlier outputs; JSON and text answers', async () => {
    const done = await run(
      [
        {
          id: 'post',
          type: 'http',
          settings: {
            method: 'POST',
            url: `${fake.url}/echo/{{ input.id }}`,
            query: { q: '{{ input.q }}' },
            headers: { 'X-Auth': 'key-{{ input.id }}' },
            body: { id: '{{ input.id }}', tags: ['a', '{{ input.q }}'] },
          },
        },
        { id: 'text', type: 'http', settings: { url: `${fake.url}/text` } },
      ],
      { id: 7, q: 'hello world' },
    );
    expect(done.status).toBe('succeeded');
    const post = done.steps[0].output;
    expect(post.status).toBe(200);
    expect(post.body).toMatchObject({ method: 'POST', url: '/echo/7?q=hello+world', auth: 'key-7' });
    expect(post.body.body).toEqual({ id: 7, tags: ['a', 'hello world'] });
    expect(done.output).toMatchObject({ status: 200, body: 'plain text' });
  });

  it('http: a 4xx fails the step at once (not retried), unless failOnHttpError is false', async () => {
    const failed = await run([{ id: 'get', type: 'http', settings: { url: `${fake.url}/missing` } }]);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ kind: 'http_client_error', stepId: 'get' });
    expect(failed.steps[0]).toMatchObject({ status: 'failed', attempts: 1, error: { status: 404 } });
    const tolerated = await run([
      { id: 'get', type: 'http', settings: { url: `${fake.url}/missing`, failOnHttpError: false } },
    ]);
    expect(tolerated.status).toBe('succeeded');
    expect(tolerated.output).toMatchObject({ status: 404, body: { error: 'nope' } });
  });

  it('refuses a step output over the limit with a clear error', async () => {
    const done = await run([{ id: 'big', type: 'http', settings: { url: `${fake.url}/big` } }]);
    expect(done.status).toBe('failed');
    expect(done.error.kind).toBe('output_too_large');
    expect(done.error.message).toMatch(/limit/);
  });

  it('transform and condition: branches go to named steps; steps off the path are skipped', async () => {
    const steps = [
      { id: 'score', type: 'transform', settings: { expression: '{"value": input.amount * 2}' } },
      {
        id: 'route',
        type: 'condition',
        settings: { branches: [{ when: 'steps.score.output.value > 100', next: 'big' }], otherwise: 'small' },
      },
      {
        id: 'big',
        type: 'transform',
        settings: { expression: '"big " & $string(steps.score.output.value)' },
        next: '$end',
      },
      { id: 'small', type: 'transform', settings: { expression: '"small"' } },
    ];
    const big = await run(steps, { amount: 80 });
    expect(big.status).toBe('succeeded');
    expect(big.output).toBe('big 160');
    expect(big.steps.map((s: any) => s.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'skipped']);
    expect(big.steps[1].output).toEqual({ matched: 0, next: 'big' });
    const small = await run(steps, { amount: 3 });
    expect(small.output).toBe('small');
    expect(small.steps.map((s: any) => s.status)).toEqual(['succeeded', 'succeeded', 'skipped', 'succeeded']);
  });

  it('a failing expression fails the step without retries', async () => {
    const done = await run([{ id: 'bad', type: 'transform', settings: { expression: '$number("abc")' } }]);
    expect(done.status).toBe('failed');
    expect(done.error.kind).toBe('expression');
    expect(done.steps[0].attempts).toBe(1);
  });

  it('delay: waits (durably) and goes on', async () => {
    const started = Date.now();
    const done = await run([
      { id: 'wait', type: 'delay', settings: { durationMs: 1500 } },
      { id: 'after', type: 'transform', settings: { expression: '"after"' } },
    ]);
    expect(done.status).toBe('succeeded');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(
      new Date(done.steps[1].startedAt).getTime() - new Date(done.steps[0].startedAt).getTime(),
    ).toBeGreaterThanOrEqual(1450);
  });

  it('agent: a message built from earlier outputs; an unknown agent fails', async () => {
    const done = await run(
      [
        {
          id: 'ask',
          type: 'agent',
          settings: { agentId: 'agt_1', message: 'Order {{ input.order }} is late' },
        },
      ],
      { order: 'A-1' },
    );
    expect(done.status).toBe('succeeded');
    expect(done.output).toEqual({
      sessionId: 'ses_1',
      reply: 'you said: Order A-1 is late',
      output: { from: 'ask' },
    });
    const missing = await run([
      { id: 'ask', type: 'agent', settings: { agentId: 'agt_missing', message: 'hi' } },
    ]);
    expect(missing.error).toMatchObject({ kind: 'not_found' });
    expect(missing.steps[0].attempts).toBe(1);
  });

  it('agent with nobody answering: a retryable unavailable error', async () => {
    const wf = await createWorkflow(me, engine.workflow.url, {
      name: 'no agent',
      steps: [
        {
          id: 'ask',
          type: 'agent',
          settings: { agentId: 'agt_1', message: 'hi' },
          retry: { maxAttempts: 2, initialIntervalMs: 100 },
        },
      ],
    });
    // The fake agent stops answering.
    await agentNc.drain();
    const ex = await execute(me, engine.workflow.url, wf.id);
    const done = await waitForStatus(me, engine.execution.url, ex.id, ['succeeded', 'failed']);
    expect(done.status).toBe('failed');
    expect(done.error.kind).toBe('unavailable');
    expect(done.steps[0].attempts).toBe(2);
    expect(done.error.message).toMatch(/svc\.agent\.invoke/);
  });

  it('integration: runs an action of a connection with rendered input', async () => {
    const done = await run(
      [
        {
          id: 'post',
          type: 'integration',
          settings: {
            connectionId: 'con_9',
            action: 'chat.postMessage',
            input: { text: 'hi {{ input.name }}' },
          },
        },
      ],
      { name: 'Ada' },
    );
    expect(done.status).toBe('succeeded');
    expect(done.output).toEqual({ echoed: { text: 'hi Ada' }, action: 'chat.postMessage' });
  });

  it('workflow: runs another workflow and waits for its output', async () => {
    const child = await createWorkflow(me, engine.workflow.url, {
      name: 'child',
      steps: [
        { id: 'nap', type: 'delay', settings: { durationMs: 300 } },
        { id: 'double', type: 'transform', settings: { expression: 'input.x * 2' } },
      ],
    });
    const done = await run(
      [
        { id: 'sub', type: 'workflow', settings: { workflowId: child.id, input: { x: '{{ input.x }}' } } },
        { id: 'use', type: 'transform', settings: { expression: 'steps.sub.output.output + 1' } },
      ],
      { x: 20 },
    );
    expect(done.status).toBe('succeeded');
    expect(done.output).toBe(41);
    const childId = done.steps[0].childExecutionId;
    const childRes = await me.call('GET', `${engine.execution.url}/api/v1/executions/${childId}`);
    expect(childRes.body).toMatchObject({
      status: 'succeeded',
      workflowId: child.id,
      trigger: { kind: 'workflow', parentExecutionId: done.id },
    });
  });

  it('workflow: a missing child workflow fails the step', async () => {
    const done = await run([{ id: 'sub', type: 'workflow', settings: { workflowId: 'wf_missing' } }]);
    expect(done.status).toBe('failed');
    expect(done.error.kind).toBe('not_found');
  });
});
