import { createInbox } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAI_KEY } from './fakes/apis.ts';
import { newOrg, startHarness, type Harness } from './helpers.ts';

const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

/** The model provider of agents: chat completions with tools, models, streaming, typed errors. */
describe('OpenAI-compatible chat completions', () => {
  let h: Harness;
  const org = newOrg('ai');
  const ids: Record<string, string> = {};
  const run = (action: string, input: unknown, extra: object = {}) =>
    h.rpc('svc.integration.run-action', { orgId: org, connectionId: ids.ai, action, input, ...extra });
  const lastCompletion = () =>
    [...h.fake.requests].reverse().find((r) => r.path === '/openai/v1/chat/completions')!;

  beforeAll(async () => {
    h = await startHarness();
    const res = await h.api(org, 'POST', '/api/v1/connections', {
      body: {
        integrationId: 'openai',
        name: 'Model provider',
        credentials: { apiKey: OPENAI_KEY },
        settings: { defaultModel: 'gpt-test', organization: 'org-acme' },
      },
    });
    expect(res.status).toBe(201);
    ids.ai = res.body.id;
    const plain = await h.api(org, 'POST', '/api/v1/connections', {
      body: { integrationId: 'openai', name: 'No default model', credentials: { apiKey: OPENAI_KEY } },
    });
    ids.noDefault = plain.body.id;
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('verifies the key with GET /models and refuses a wrong one', async () => {
    const check = h.fake.requests.find((r) => r.path === '/openai/v1/models');
    expect(check?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    const wrong = await h.api(org, 'POST', '/api/v1/connections', {
      body: { integrationId: 'openai', name: 'Wrong key', credentials: { apiKey: 'sk-wrong' } },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.detail).toContain('invalid_api_key');
  });

  it('chat.completions: sends the OpenAI request and returns the tool calls', async () => {
    const reply = await run('chat.completions', {
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools,
      tool_choice: 'auto',
      temperature: 0.2,
    });
    expect(reply.ok).toBe(true);
    expect(reply.data.output.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
    });
    expect(reply.data.output.usage).toMatchObject({ total_tokens: 8 });
    const req = lastCompletion();
    expect(req.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(req.headers['openai-organization']).toBe('org-acme');
    expect(req.json).toMatchObject({
      model: 'gpt-test',
      stream: false,
      tools,
      tool_choice: 'auto',
      temperature: 0.2,
    });
    // A tool result goes back as a `tool` message; the answer is plain content.
    const followUp = await run('chat.completions', {
      model: 'gpt-other',
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: reply.data.output.choices[0].message.tool_calls },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    });
    expect(followUp.data.output.choices[0].message.content).toBe('echo: sunny');
    expect(lastCompletion().json.model).toBe('gpt-other');
  });

  it('models.list', async () => {
    expect(await run('models.list', {})).toMatchObject({
      ok: true,
      data: { output: { models: [{ id: 'gpt-test', ownedBy: 'fake' }] } },
    });
  });

  it('types the provider errors: quota and bad model permanent, overload and rate limit retryable', async () => {
    const messages = [{ role: 'user', content: 'hi' }];
    expect(await run('chat.completions', { model: 'quota', messages })).toMatchObject({
      ok: false,
      error: { kind: 'forbidden', retryable: false },
    });
    expect(await run('chat.completions', { model: 'unknown-model', messages })).toMatchObject({
      ok: false,
      error: { kind: 'validation', retryable: false },
    });
    expect(await run('chat.completions', { model: 'overloaded', messages })).toMatchObject({
      ok: false,
      error: { kind: 'unavailable', retryable: true },
    });
    const busy = await run('chat.completions', { model: 'busy', messages });
    expect(busy).toMatchObject({ ok: false, error: { kind: 'unavailable', retryable: true } });
    expect(busy.error.message).toContain('retry after 2 s');
    expect(await run('chat.completions', { model: 'slow', messages }, { timeoutMs: 400 })).toMatchObject({
      ok: false,
      error: { kind: 'timeout', retryable: true },
    });
    const noModel = await h.rpc('svc.integration.run-action', {
      orgId: org,
      connectionId: ids.noDefault,
      action: 'chat.completions',
      input: { messages },
    });
    expect(noModel).toMatchObject({
      ok: false,
      error: { kind: 'validation', errors: [{ field: 'input.model' }] },
    });
    const invalid = await run('chat.completions', { messages: [] });
    expect(invalid.error.errors.map((e: any) => e.field)).toEqual(['input.messages']);
  });

  it('chat-stream: chunks to the caller subject as they come, the whole completion as the reply', async () => {
    const inbox = createInbox();
    const chunks: any[] = [];
    const sub = h.nc.subscribe(inbox, { callback: (_e, m) => void chunks.push(JSON.parse(m.string())) });
    const reply = await h.rpc('svc.integration.chat-stream', {
      orgId: org,
      connectionId: ids.ai,
      deliverTo: inbox,
      input: { messages: [{ role: 'user', content: 'hello there' }] },
    });
    await h.nc.flush();
    sub.unsubscribe();
    expect(reply).toMatchObject({
      ok: true,
      data: {
        action: 'chat.completions',
        output: {
          id: 'chatcmpl-s1',
          model: 'gpt-test',
          choices: [
            { index: 0, message: { role: 'assistant', content: 'echo: hello there' }, finish_reason: 'stop' },
          ],
          usage: { total_tokens: 8 },
        },
      },
    });
    expect(lastCompletion().json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_, i) => i));
    const text = chunks.map((c) => c.chunk.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('echo: hello there');
  });

  it('chat-stream: tool calls are assembled from their pieces; errors are typed like run-action', async () => {
    const reply = await h.rpc('svc.integration.chat-stream', {
      orgId: org,
      connectionId: ids.ai,
      deliverTo: createInbox(),
      input: { messages: [{ role: 'user', content: 'Weather?' }], tools },
    });
    expect(reply.data.output.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        content: null,
        tool_calls: [{ id: 'call_1', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
    });
    const failed = await h.rpc('svc.integration.chat-stream', {
      orgId: org,
      connectionId: ids.ai,
      deliverTo: createInbox(),
      input: { model: 'overloaded', messages: [{ role: 'user', content: 'x' }] },
    });
    expect(failed).toMatchObject({ ok: false, error: { kind: 'unavailable', retryable: true } });
    const otherOrg = await h.rpc('svc.integration.chat-stream', {
      orgId: newOrg('intruder'),
      connectionId: ids.ai,
      deliverTo: createInbox(),
      input: { messages: [{ role: 'user', content: 'x' }] },
    });
    expect(otherOrg).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    const wildcard = await h.rpc('svc.integration.chat-stream', {
      orgId: org,
      connectionId: ids.ai,
      deliverTo: 'evt.>',
      input: { messages: [{ role: 'user', content: 'x' }] },
    });
    expect(wildcard).toMatchObject({
      ok: false,
      error: { kind: 'validation', errors: [{ field: 'deliverTo' }] },
    });
  });
});
