import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, TEST_KEY_RING, type TestStack } from '@platform/testing';
import { FAKE_KEY, FakeOpenAi, type ChatRequestBody, type ModelAnswer } from './fake-openai.ts';
import { eventually, invokeStream, signup, sleep, startPlatform } from './support.ts';

/** A made-up order API that the agent's integration action tool calls (through the `http` integration). */
async function startOrdersApi(): Promise<{ url: string; server: Server; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const id = /^\/orders\/(\w+)/.exec(req.url ?? '')?.[1];
    res.writeHead(id ? 200 : 404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(id ? { id, status: 'shipped', carrier: 'ACME Post' } : { error: 'no such order' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, hits };
}

const lastText = (body: ChatRequestBody) => String(body.messages.at(-1)?.content ?? '');

/** The fake model: answers tool results, calls tools when asked, fails when told to. */
function brain(body: ChatRequestBody): ModelAnswer {
  const last = body.messages.at(-1)!;
  if (last.role === 'tool') return { content: `Here is what I found: ${last.content}` };
  const text = lastText(body);
  if (text.includes('order')) {
    return {
      content: 'Let me check.',
      toolCalls: [
        { name: 'lookup_order', arguments: { method: 'GET', path: `/orders/${/\d+/.exec(text)?.[0]}` } },
      ],
    };
  }
  if (text.includes('bye'))
    return { toolCalls: [{ name: 'end_session', arguments: { reason: 'customer is done' } }] };
  if (text.includes('explode')) return { status: 400, error: 'the model refuses this request' };
  const earlier = body.messages.filter((m) => m.role === 'user').length - 1;
  return { content: `You said "${text}" after ${earlier} earlier messages.` };
}

/**
 * Conversations through an OpenAI-compatible provider: the real integration service in front of a
 * local fake speaking the protocol (tool calls, streaming chunks), an integration action tool, retries
 * of 429/5xx with backoff, and provider failures that fail the session.
 */
describe('invoke with an OpenAI-compatible provider', () => {
  let stack: TestStack;
  let fake: FakeOpenAi;
  let orders: Awaited<ReturnType<typeof startOrdersApi>>;
  let a: { token: string; orgId: string };
  let b: { token: string; orgId: string };
  let model: string; // the OpenAI connection
  let api: string; // the orders API connection
  let agentId: string;

  beforeAll(async () => {
    [fake, orders] = await Promise.all([new FakeOpenAi(brain).start(), startOrdersApi()]);
    stack = await startPlatform(['session', 'auth', 'integration', 'agent'], {
      integration: { CREDENTIALS_KEYS: TEST_KEY_RING, ALLOW_PRIVATE_NETWORK: 'true' },
      agent: {
        PROVIDER_BACKOFF_MS: '20',
        PROVIDER_MAX_ATTEMPTS: '3',
        PROVIDER_TIMEOUT_MS: '1500',
        SSE_HEARTBEAT_MS: '200',
        TURN_LOCK_WAIT_MS: '300',
      },
    });
    [a, b] = await Promise.all([signup(stack.url, 'OpenAI A'), signup(stack.url, 'OpenAI B')]);
    const connect = async (body: unknown) => {
      const res = await gw(a.token, 'POST', '/connections', body);
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    model = await connect({
      integrationId: 'openai',
      name: 'Fake OpenAI',
      credentials: { apiKey: FAKE_KEY },
      settings: { baseUrl: `${fake.url}/v1`, defaultModel: 'fake-model' },
    });
    api = await connect({
      integrationId: 'http',
      name: 'Orders',
      credentials: { authKind: 'none' },
      settings: { baseUrl: orders.url },
    });
    const created = await gw(a.token, 'POST', '/agents', {
      name: 'Order desk',
      systemPrompt: 'You help customers with their orders.',
      provider: { kind: 'openai', connectionId: model },
      temperature: 0.1,
      maxTokens: 300,
      tools: [
        { type: 'integration_action', name: 'lookup_order', connectionId: api, action: 'request' },
        { type: 'end_session' },
      ],
    });
    expect(created.status).toBe(201);
    agentId = created.body.id;
  });
  afterAll(async () => {
    await stack?.dispose();
    await fake?.close();
    orders?.server.close();
  });

  const gw = (token: string, method: string, path: string, body?: unknown) =>
    http(method, `${stack.url}/api/v1${path}`, { token, body });
  const invoke = (body: unknown, token = a.token) => gw(token, 'POST', `/agents/${agentId}/invoke`, body);
  const sessionWhen = (id: string, check: (s: any) => boolean) =>
    eventually(10_000, async () => {
      const res = await gw(a.token, 'GET', `/sessions/${id}`);
      return res.status === 200 && check(res.body) ? res.body : undefined;
    });

  it('checks what the configuration refers to', async () => {
    const fields = async (body: unknown, token = a.token) => {
      const res = await gw(token, 'POST', '/agents', { name: 'x', ...(body as object) });
      expect(res.status).toBe(400);
      return res.body.errors.map((e: any) => e.field);
    };
    expect(await fields({ provider: { kind: 'openai', connectionId: 'conn_missing' } })).toEqual([
      'provider.connectionId',
    ]);
    expect(await fields({ provider: { kind: 'openai', connectionId: api } })).toEqual([
      'provider.connectionId',
    ]);
    const noDefault = await gw(a.token, 'POST', '/connections', {
      integrationId: 'openai',
      name: 'No default',
      credentials: { apiKey: FAKE_KEY },
      settings: { baseUrl: `${fake.url}/v1` },
    });
    expect(await fields({ provider: { kind: 'openai', connectionId: noDefault.body.id } })).toEqual([
      'model',
    ]);
    const withModel = await gw(a.token, 'POST', '/agents', {
      name: 'Named model',
      provider: { kind: 'openai', connectionId: noDefault.body.id },
      model: 'fake-model',
    });
    expect(withModel.status).toBe(201);
    expect(
      await fields({
        tools: [{ type: 'integration_action', name: 't', connectionId: api, action: 'explode' }],
      }),
    ).toEqual(['tools.0.action']);
    expect(
      await fields({
        tools: [{ type: 'integration_action', name: 't', connectionId: 'nope', action: 'request' }],
      }),
    ).toEqual(['tools.0.connectionId']);
    // Another organization's connection does not exist for B.
    expect(await fields({ provider: { kind: 'openai', connectionId: model } }, b.token)).toEqual([
      'provider.connectionId',
    ]);
  });

  it('holds a multi-turn conversation with tool calls through the gateway', async () => {
    const one = await invoke({ message: 'hello there', channel: 'Web', metadata: { account: 'A-1' } });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      reply: 'You said "hello there" after 0 earlier messages.',
      turn: 1,
      toolCalls: [],
    });
    const firstRequest = fake.completions().at(-1)!.body;
    expect(firstRequest).toMatchObject({
      model: 'fake-model',
      temperature: 0.1,
      max_tokens: 300,
      stream: false,
    });
    expect(firstRequest.messages[0]).toEqual({
      role: 'system',
      content: 'You help customers with their orders.',
    });
    const offered = Object.fromEntries(firstRequest.tools!.map((t) => [t.function.name, t.function]));
    expect(Object.keys(offered).sort()).toEqual(['end_session', 'lookup_order']);
    expect(offered.lookup_order!.description).toContain('HTTP request');
    expect(offered.lookup_order!.parameters.properties).toHaveProperty('path');
    const sessionId = one.body.sessionId;

    const two = await invoke({ message: 'Where is my order 42?', sessionId });
    expect(two.status).toBe(200);
    expect(two.body.toolCalls).toEqual([
      expect.objectContaining({
        name: 'lookup_order',
        type: 'integration_action',
        arguments: { method: 'GET', path: '/orders/42' },
        output: expect.objectContaining({
          status: 200,
          body: { id: '42', status: 'shipped', carrier: 'ACME Post' },
        }),
      }),
    ]);
    expect(two.body.reply).toMatch(/^Let me check\.\nHere is what I found: .*"shipped"/);
    expect(two.body.usage.modelCalls).toBe(2);
    expect(orders.hits).toContain('/orders/42');
    // The model saw the whole conversation: earlier turn, its tool call and the tool's result.
    const followUp = fake.completions().at(-1)!.body.messages;
    expect(followUp.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'tool']);
    expect(followUp[4]!.tool_calls![0].function.name).toBe('lookup_order');

    const three = await invoke({ message: 'thanks', sessionId });
    expect(three.body.reply).toBe('You said "thanks" after 2 earlier messages.');
    const four = await invoke({ message: 'bye now', sessionId });
    expect(four.body).toMatchObject({ sessionStatus: 'Completed', endReason: 'customer is done' });

    const session = await sessionWhen(sessionId, (s) => s.status === 'Completed');
    expect(session.messages.map((m: any) => `${m.position}:${m.sender}`)).toEqual([
      '1:user',
      '2:agent',
      '3:user',
      '4:agent',
      '5:user',
      '6:agent',
      '7:user',
      '8:agent',
    ]);
    expect(session.messages[3].content).toBe(two.body.reply);
    expect(session.metadata).toEqual({ account: 'A-1' });
  });

  it('streams chunks from the provider, tool calls included', async () => {
    const url = `${stack.url}/api/v1/agents/${agentId}/invoke`;
    const res = await invokeStream(
      url,
      { authorization: `Bearer ${a.token}` },
      { message: 'order 7 please', channel: 'Web', stream: true },
    );
    expect(res.status).toBe(200);
    const names = res.events.map((e) => e.event);
    expect(names).toEqual(
      expect.arrayContaining(['session', 'message', 'delta', 'tool_call', 'tool_result', 'done']),
    );
    expect(names.indexOf('tool_call')).toBeLessThan(names.indexOf('tool_result'));
    const done = res.events.at(-1)!.data;
    const text = res.events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text)
      .join('');
    expect(text).toBe(done.reply);
    expect(done.reply).toMatch(/^Let me check\.\nHere is what I found: .*"7"/);
    expect(fake.completions().at(-1)!.body.stream).toBe(true);
    expect(res.events.find((e) => e.event === 'tool_call')!.data).toMatchObject({ name: 'lookup_order' });
    const session = await sessionWhen(done.sessionId, (s) => s.messageCount === 2);
    expect(session.messages[1].content).toBe(done.reply);
  });

  it('retries 429 and 5xx answers with backoff before giving up', async () => {
    const before = fake.completions().length;
    fake.failNext(1, 429, { 'retry-after': '0' });
    fake.failNext(1, 503);
    const res = await invoke({ message: 'are you there?', channel: 'Web' });
    expect(res.status).toBe(200);
    expect(res.body.reply).toContain('are you there?');
    expect(res.body.usage.modelCalls).toBe(3);
    expect(fake.completions().length - before).toBe(3);
  });

  it('retries a model call that times out', async () => {
    const before = fake.completions().length;
    fake.delayNext(3_000);
    const res = await invoke({ message: 'slow start', channel: 'Web' });
    expect(res.status).toBe(200);
    expect(res.body.reply).toContain('slow start');
    expect(res.body.usage.modelCalls).toBe(2);
    expect(fake.completions().length - before).toBe(2);
  });

  it('runs one turn of a session at a time', async () => {
    const started = (await invoke({ message: 'hello', channel: 'Web' })).body;
    fake.delayNext(1_200);
    const [x, y] = await Promise.all([
      invoke({ message: 'first', sessionId: started.sessionId }),
      sleep(300).then(() => invoke({ message: 'second', sessionId: started.sessionId })),
    ]);
    expect([x.status, y.status]).toEqual([200, 409]);
    expect(y.body.detail).toContain('in progress');
    const after = await invoke({ message: 'third', sessionId: started.sessionId });
    expect(after.body.messages.map((m: any) => m.position)).toEqual([5, 6]);
  });

  it('finishes a streamed turn whose client went away; the session gets the whole reply', async () => {
    fake.chunkDelayMs = 100;
    try {
      const controller = new AbortController();
      const res = await fetch(`${stack.url}/api/v1/agents/${agentId}/invoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'tell me a long story about streams', channel: 'Web', stream: true }),
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      let seen = '';
      // The first event (session) is enough: the client leaves while the model is still streaming.
      while (!seen.includes('\n\n')) seen += new TextDecoder().decode((await reader.read()).value);
      expect(seen).toMatch(/^event: session\n/);
      const sessionId = /"sessionId":"([^"]+)"/.exec(seen)![1]!;
      controller.abort();
      const session = await sessionWhen(
        sessionId,
        (s) => s.messageCount === 2 && s.systemEvents.some((e: any) => e.type === 'disconnection'),
      );
      expect(session.messages[1].content).toBe(
        'You said "tell me a long story about streams" after 0 earlier messages.',
      );
      expect(session.status).toBe('Active');
      await sleep(500); // nothing more comes
      const again = await gw(a.token, 'GET', `/sessions/${sessionId}`);
      const departures = again.body.systemEvents.filter((e: any) => e.type === 'disconnection');
      expect(departures).toHaveLength(1);
      expect(departures[0].details).toMatchObject({ by: 'client', during: 'stream' });
      // The conversation goes on: the next turn continues it.
      const next = await invoke({ message: 'back again', sessionId });
      expect(next.body).toMatchObject({ turn: 2, sessionStatus: 'Active' });
    } finally {
      fake.chunkDelayMs = 2;
    }
  });

  it('fails the session when the provider keeps failing, or refuses the request', async () => {
    const started = await invoke({ message: 'hello', channel: 'Web' });
    const before = fake.completions().length;
    fake.failNext(3, 500);
    const failed = await invoke({ message: 'hello again', sessionId: started.body.sessionId });
    expect(failed.status).toBe(502);
    expect(failed.body.instance).toBe(`/api/v1/sessions/${started.body.sessionId}`);
    expect(fake.completions().length - before).toBe(3);
    const session = await sessionWhen(started.body.sessionId, (s) => s.status === 'Failed');
    const error = session.systemEvents.find((e: any) => e.type === 'error');
    expect(error.details).toMatchObject({
      component: 'model_provider',
      provider: 'openai',
      kind: 'unavailable',
    });
    expect(String(error.details.message)).toContain('500');

    const count = fake.completions().length;
    const refused = await invoke({ message: 'explode', channel: 'Web' });
    expect(refused.status).toBe(502);
    expect(fake.completions().length - count).toBe(1); // a refusal is not retried
    const refusedId = refused.headers.get('session-id')!;
    const refusedSession = await sessionWhen(refusedId, (s) => s.status === 'Failed');
    expect(refusedSession.endReason).toContain('the model refuses this request');
  });
});
