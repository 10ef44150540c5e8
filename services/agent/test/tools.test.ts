import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, TEST_KEY_RING, type TestStack } from '@platform/testing';
import { FAKE_KEY, FakeOpenAi, type ChatRequestBody, type ModelAnswer } from './fake-openai.ts';
import { eventually, signup, startPlatform } from './support.ts';

/** The fake model: adds numbers with the workflow tool, looks orders up with the integration tool. */
function brain(body: ChatRequestBody): ModelAnswer {
  const last = body.messages.at(-1)!;
  if (last.role === 'tool') {
    const result = JSON.parse(String(last.content));
    if (result.error) return { content: `The tool failed: ${result.error}` };
    if (result.output?.total !== undefined) return { content: `The total is ${result.output.total}.` };
    return { content: `The API says ${JSON.stringify(result.body ?? result)}` };
  }
  const text = String(last.content ?? '');
  const numbers = (text.match(/\d+/g) ?? []).map(Number);
  if (text.startsWith('add'))
    return { toolCalls: [{ name: 'add_numbers', arguments: { a: numbers[0], b: numbers[1] } }] };
  if (text.startsWith('slow')) return { toolCalls: [{ name: 'slow_report', arguments: {} }] };
  if (text.startsWith('models')) return { toolCalls: [{ name: 'list_models', arguments: {} }] };
  return { content: `You said ${text}` };
}

/**
 * Tools that reach other services for real: a workflow tool runs an execution in the workflow and
 * execution services and waits for it; an integration action tool runs through the integration
 * service; and the workflow `agent` step invokes an agent over svc.agent.invoke.
 */
describe('tools and workflows', () => {
  let stack: TestStack;
  let fake: FakeOpenAi;
  let a: { token: string; orgId: string };
  let adder: string; // workflow: adds input.a and input.b
  let slow: string; // workflow: waits 3 s
  let model: string; // OpenAI connection

  const gw = (method: string, path: string, body?: unknown, token = a.token) =>
    http(method, `${stack.url}/api/v1${path}`, { token, body });

  beforeAll(async () => {
    fake = await new FakeOpenAi(brain).start();
    stack = await startPlatform(['session', 'auth', 'integration', 'workflow', 'execution', 'agent'], {
      integration: { CREDENTIALS_KEYS: TEST_KEY_RING, ALLOW_PRIVATE_NETWORK: 'true' },
    });
    a = await signup(stack.url, 'Tools A');
    const workflow = async (body: unknown) => {
      const res = await gw('POST', '/workflows', body);
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    adder = await workflow({
      name: 'Adder',
      trigger: 'manual',
      steps: [{ id: 'sum', type: 'transform', settings: { expression: '{"total": input.a + input.b}' } }],
    });
    slow = await workflow({
      name: 'Slow report',
      trigger: 'manual',
      steps: [
        { id: 'wait', type: 'delay', settings: { durationMs: 3000 } },
        { id: 'done', type: 'transform', settings: { expression: '{"ok": true}' } },
      ],
    });
    const conn = await gw('POST', '/connections', {
      integrationId: 'openai',
      name: 'Fake OpenAI',
      credentials: { apiKey: FAKE_KEY },
      settings: { baseUrl: `${fake.url}/v1`, defaultModel: 'fake-model' },
    });
    expect(conn.status).toBe(201);
    model = conn.body.id;
  });
  afterAll(async () => {
    await stack?.dispose();
    await fake?.close();
  });

  const tools = () => [
    {
      type: 'workflow',
      name: 'add_numbers',
      description: 'Adds a and b',
      workflowId: adder,
      timeoutSeconds: 20,
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    },
    {
      type: 'workflow',
      name: 'slow_report',
      description: 'A slow report',
      workflowId: slow,
      timeoutSeconds: 1,
    },
    { type: 'integration_action', name: 'list_models', connectionId: model, action: 'models.list' },
  ];

  it('runs a workflow and an integration action from a multi-turn conversation with the OpenAI-compatible model', async () => {
    const created = await gw('POST', '/agents', {
      name: 'Calculator',
      provider: { kind: 'openai', connectionId: model },
      tools: tools(),
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const one = await gw('POST', `/agents/${id}/invoke`, { message: 'add 2 and 40', channel: 'Web' });
    expect(one.status).toBe(200);
    expect(one.body.reply).toBe('The total is 42.');
    const call = one.body.toolCalls[0];
    expect(call).toMatchObject({ name: 'add_numbers', type: 'workflow', arguments: { a: 2, b: 40 } });
    expect(call.output).toMatchObject({ status: 'succeeded', output: { total: 42 } });
    const execution = await gw('GET', `/executions/${call.output.executionId}`);
    expect(execution.status).toBe(200);
    expect(execution.body).toMatchObject({ workflowId: adder, status: 'succeeded', input: { a: 2, b: 40 } });
    const offered = fake.completions()[0]!.body.tools!.find((t) => t.function.name === 'add_numbers')!;
    expect(offered.function.parameters.required).toEqual(['a', 'b']);

    const two = await gw('POST', `/agents/${id}/invoke`, {
      message: 'models you have?',
      sessionId: one.body.sessionId,
    });
    expect(two.body.toolCalls[0]).toMatchObject({
      name: 'list_models',
      type: 'integration_action',
      output: { models: [{ id: 'fake-model' }] },
    });
    expect(two.body.reply).toContain('fake-model');
    const three = await gw('POST', `/agents/${id}/invoke`, {
      message: 'add 1 and 1',
      sessionId: one.body.sessionId,
    });
    expect(three.body.reply).toBe('The total is 2.');
    const session = await eventually(10_000, async () => {
      const res = await gw('GET', `/sessions/${one.body.sessionId}`);
      return res.body?.messageCount === 6 ? res.body : undefined;
    });
    expect(session.messages.map((m: any) => m.content)).toEqual([
      'add 2 and 40',
      'The total is 42.',
      'models you have?',
      two.body.reply,
      'add 1 and 1',
      'The total is 2.',
    ]);
  });

  it('runs a workflow from a local-provider rule, and reports a workflow that takes too long', async () => {
    const created = await gw('POST', '/agents', {
      name: 'Local calculator',
      provider: {
        kind: 'local',
        rules: [
          {
            match: { any: ['add'] },
            tool: { name: 'add_numbers', arguments: { a: 20, b: 22 } },
            reply: 'Sum: {{toolOutput.output.total}}',
          },
          {
            match: { any: ['slow'] },
            tool: { name: 'slow_report', arguments: {} },
            reply: 'Report: {{toolOutput}}',
          },
        ],
      },
      tools: tools(),
    });
    const id = created.body.id;
    const added = await gw('POST', `/agents/${id}/invoke`, { message: 'please add', channel: 'Web' });
    expect(added.body.reply).toBe('Sum: 42');
    const late = await gw('POST', `/agents/${id}/invoke`, {
      message: 'slow please',
      sessionId: added.body.sessionId,
    });
    expect(late.status).toBe(200);
    expect(late.body.toolCalls[0].error).toMatch(/did not finish within 1 s/);
    expect(late.body.reply).toContain('did not finish');
    const session = await eventually(10_000, async () => {
      const res = await gw('GET', `/sessions/${added.body.sessionId}`);
      return res.body?.messageCount === 4 ? res.body : undefined;
    });
    const error = session.systemEvents.find((e: any) => e.type === 'error');
    expect(error.details).toMatchObject({ component: 'tool', tool: 'slow_report', toolType: 'workflow' });
  });

  it('refuses a workflow tool whose workflow does not exist', async () => {
    const res = await gw('POST', '/agents', {
      name: 'Broken',
      tools: [{ type: 'workflow', name: 'nope', description: 'x', workflowId: 'wf_missing' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: any) => e.field)).toEqual(['tools.0.workflowId']);
  });

  it('answers the agent step of a workflow over svc.agent.invoke', async () => {
    const agent = await gw('POST', '/agents', {
      name: 'Step agent',
      channels: ['Mobile SDK', 'Web'],
      provider: {
        kind: 'local',
        rules: [{ match: { any: ['status'] }, reply: '{"status": "all good", "asked": "{{message}}"}' }],
      },
    });
    const wf = await gw('POST', '/workflows', {
      name: 'Ask the agent',
      trigger: 'manual',
      steps: [
        {
          id: 'ask',
          type: 'agent',
          settings: { agentId: agent.body.id, message: 'status of {{ input.system }}?' },
        },
      ],
    });
    expect(wf.status).toBe(201);
    const started = await gw('POST', `/workflows/${wf.body.id}/execute`, { input: { system: 'billing' } });
    expect(started.status).toBe(202);
    const done = await eventually(20_000, async () => {
      const res = await gw('GET', `/executions/${started.body.id}`);
      return ['succeeded', 'failed'].includes(res.body?.status) ? res.body : undefined;
    });
    expect(done.status).toBe('succeeded');
    expect(done.output).toMatchObject({
      reply: '{"status": "all good", "asked": "status of billing?"}',
      output: { status: 'all good' },
    });
    const session = await eventually(10_000, async () => {
      const res = await gw('GET', `/sessions/${done.output.sessionId}`);
      return res.body?.messageCount === 2 ? res.body : undefined;
    });
    expect(session).toMatchObject({
      channel: 'Mobile SDK',
      metadata: { source: 'workflow', executionId: started.body.id, workflowId: wf.body.id, stepId: 'ask' },
    });
  });
});
