import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, internalHeaders, startStack, type TestStack } from '@platform/testing';
import { as, eventually, invokeStream, rulesAgent, signup, sleep } from './support.ts';

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Conversations with the local provider through the gateway, written into the real session service:
 * multi-turn, versions, streaming, provider failure, end by user, end by the agent, idle timeout,
 * max turns, validation, idempotency, roles and tenant isolation.
 */
describe('invoke with the local provider', () => {
  let stack: TestStack;
  let a: { token: string; orgId: string };
  let b: { token: string; orgId: string };

  beforeAll(async () => {
    stack = await startStack(['auth', 'session', 'agent'], {
      serviceEnv: { agent: { IDLE_SWEEP_MS: '200', SSE_HEARTBEAT_MS: '100' } },
    });
    [a, b] = await Promise.all([signup(stack.url, 'Invoke A'), signup(stack.url, 'Invoke B')]);
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  const gw = (
    token: string,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => http(method, `${stack.url}/api/v1${path}`, { token, body, headers });
  const createAgent = async (body: unknown, token = a.token) => {
    const res = await gw(token, 'POST', '/agents', body);
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  /** The session as the session service has it, once `check` holds. */
  const sessionWhen = (id: string, check: (s: any) => boolean, token = a.token) =>
    eventually(10_000, async () => {
      const res = await gw(token, 'GET', `/sessions/${id}`);
      return res.status === 200 && check(res.body) ? res.body : undefined;
    });

  it('holds a multi-turn conversation and writes it into the session, in order', async () => {
    const bot = await createAgent(rulesAgent('Concierge', { greeting: 'Welcome to Acme!' }));
    const first = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, {
      message: 'hello',
      channel: 'Web',
      metadata: { customer: { tier: 'gold' }, tags: ['vip'] },
    });
    expect(first.status).toBe(200);
    expect(first.body.sessionId).toMatch(uuidV4);
    expect(first.body).toMatchObject({
      agentId: bot.id,
      agentVersion: 1,
      turn: 1,
      reply: 'Hello! I am Concierge. (turn 1)',
      toolCalls: [],
      sessionStatus: 'Active',
      endReason: null,
    });
    expect(first.body.usage.modelCalls).toBe(1);
    expect(first.body.usage.totalTokens).toBeGreaterThan(0);
    expect(first.body.messages.map((m: any) => [m.position, m.sender, m.content])).toEqual([
      [1, 'agent', 'Welcome to Acme!'],
      [2, 'user', 'hello'],
      [3, 'agent', 'Hello! I am Concierge. (turn 1)'],
    ]);
    const sessionId = first.body.sessionId;
    const second = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'echo me', sessionId });
    expect(second.body).toMatchObject({ turn: 2, reply: 'You said: echo me' });
    expect(second.body.messages.map((m: any) => m.position)).toEqual([4, 5]);
    const third = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, {
      message: 'the weather?',
      sessionId,
      channel: 'Web',
    });
    expect(third.body.reply).toBe('Sorry, I do not know about "the weather?".');
    const hello = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, {
      message: 'hello again',
      sessionId,
    });
    expect(hello.body.reply).toBe('Hello! I am Concierge. (turn 4)');

    const session = await sessionWhen(sessionId, (s) => s.messageCount === 9);
    expect(session).toMatchObject({
      agentId: bot.id,
      agentName: 'Concierge',
      agentVersion: '1',
      channel: 'Web',
      sessionType: 'chat',
      status: 'Active',
      metadata: { customer: { tier: 'gold' }, tags: ['vip'] },
    });
    expect(session.messages.map((m: any) => `${m.position}:${m.sender}:${m.content}`)).toEqual([
      '1:agent:Welcome to Acme!',
      '2:user:hello',
      '3:agent:Hello! I am Concierge. (turn 1)',
      '4:user:echo me',
      '5:agent:You said: echo me',
      '6:user:the weather?',
      '7:agent:Sorry, I do not know about "the weather?".',
      '8:user:hello again',
      '9:agent:Hello! I am Concierge. (turn 4)',
    ]);
    expect(session.systemEvents.map((e: any) => e.type)).toContain('connection_established');

    // The agent closes the conversation with its end_session tool.
    const bye = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'ok bye', sessionId });
    expect(bye.body).toMatchObject({
      reply: 'Goodbye!',
      sessionStatus: 'Completed',
      endReason: 'user said ok bye',
    });
    expect(bye.body.toolCalls).toEqual([
      expect.objectContaining({
        name: 'end_session',
        type: 'end_session',
        arguments: { reason: 'user said ok bye' },
      }),
    ]);
    const ended = await sessionWhen(sessionId, (s) => s.status === 'Completed');
    expect(ended.messageCount).toBe(11);
    expect(ended.endReason).toBe('user said ok bye');
    const after = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello?', sessionId });
    expect(after.status).toBe(409);
  });

  it('keeps a session on the version it started with; new sessions use the new one', async () => {
    const bot = await createAgent(rulesAgent('Pinned'));
    const old = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, {
      message: 'hello',
      channel: 'Phone',
      sessionType: 'chat',
    });
    const updated = await gw(a.token, 'PUT', `/agents/${bot.id}`, {
      provider: { kind: 'local', rules: [], fallback: 'Version two here.' },
    });
    expect(updated.body.version).toBe(2);
    const cont = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, {
      message: 'hello',
      sessionId: old.body.sessionId,
    });
    expect(cont.body).toMatchObject({ agentVersion: 1, reply: 'Hello! I am Pinned. (turn 2)' });
    const fresh = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, {
      message: 'hello',
      channel: 'Phone',
    });
    expect(fresh.body).toMatchObject({ agentVersion: 2, reply: 'Version two here.' });
    await sessionWhen(fresh.body.sessionId, (s) => s.agentVersion === '2');
  });

  it('streams the reply as server-sent events; the session gets the whole reply', async () => {
    const bot = await createAgent(rulesAgent('Streamer', { greeting: 'Hey.' }));
    const headers = { authorization: `Bearer ${a.token}` };
    const url = `${stack.url}/api/v1/agents/${bot.id}/invoke`;
    const res = await invokeStream(url, headers, {
      message: 'echo a streamed answer please',
      channel: 'Web',
      stream: true,
    });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('text/event-stream');
    const names = res.events.map((e) => e.event);
    expect(names[0]).toBe('session');
    expect(names.slice(1, 3)).toEqual(['message', 'message']);
    expect(names.filter((n) => n === 'delta').length).toBeGreaterThan(3);
    expect(names.slice(-2)).toEqual(['message', 'done']);
    const done = res.events.at(-1)!.data;
    const text = res.events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text)
      .join('');
    expect(text).toBe('You said: echo a streamed answer please');
    expect(done).toMatchObject({ reply: text, turn: 1, sessionStatus: 'Active' });
    expect(res.events[0]!.data).toMatchObject({
      sessionId: done.sessionId,
      agentId: bot.id,
      agentVersion: 1,
      turn: 1,
    });
    // Accept: text/event-stream alone also streams; a continued session streams too.
    const next = await invokeStream(url, headers, { message: 'hello', sessionId: done.sessionId });
    expect(next.events.at(-1)).toMatchObject({
      event: 'done',
      data: { turn: 2, reply: 'Hello! I am Streamer. (turn 2)' },
    });
    const session = await sessionWhen(done.sessionId, (s) => s.messageCount === 5);
    expect(session.messages[2].content).toBe(text);
    // Errors found before streaming starts are ordinary problem+json answers.
    const refused = await invokeStream(url, headers, {
      message: 'hi',
      sessionId: done.sessionId,
      metadata: { a: 1 },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].field).toBe('metadata');
  });

  it('fails the session when the model provider fails, with an error event naming it', async () => {
    const bot = await createAgent(rulesAgent('Fragile'));
    const started = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, {
      message: 'hello',
      channel: 'Web',
    });
    const sessionId = started.body.sessionId;
    const broken = await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, {
      message: 'please break',
      sessionId,
    });
    expect(broken.status).toBe(502);
    expect(broken.headers.get('content-type')).toContain('application/problem+json');
    expect(broken.body).toMatchObject({
      type: 'https://docs.platform.example/problems/model-provider-failed',
      instance: `/api/v1/sessions/${sessionId}`,
    });
    expect(broken.body.detail).toContain('the model is down');
    const failed = await sessionWhen(sessionId, (s) => s.status === 'Failed');
    expect(failed.messageCount).toBe(3); // hello, its reply, and the message that broke it
    const error = failed.systemEvents.find((e: any) => e.type === 'error');
    expect(error.details).toMatchObject({ component: 'model_provider', provider: 'local', kind: 'rejected' });
    expect(String(error.details.message)).toContain('the model is down');
    expect(
      (await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello', sessionId })).status,
    ).toBe(409);

    // Streaming: the failure is the stream's last event.
    const streamed = await invokeStream(
      `${stack.url}/api/v1/agents/${bot.id}/invoke`,
      { authorization: `Bearer ${a.token}` },
      { message: 'break now', channel: 'Web', stream: true },
    );
    const last = streamed.events.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data).toMatchObject({ status: 502, sessionStatus: 'Failed' });
    await sessionWhen(last.data.sessionId, (s) => s.status === 'Failed');
  });

  it('ends a conversation for the user: cancelled or completed, once', async () => {
    const bot = await createAgent(rulesAgent('Closable'));
    const one = (
      await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello', channel: 'WhatsApp' })
    ).body;
    const end = await gw(a.token, 'POST', `/agents/${bot.id}/sessions/${one.sessionId}/end`, {
      status: 'cancelled',
      reason: 'user left',
    });
    expect(end.status).toBe(200);
    expect(end.body).toMatchObject({ sessionId: one.sessionId, status: 'Cancelled', reason: 'user left' });
    const cancelled = await sessionWhen(one.sessionId, (s) => s.status === 'Cancelled');
    expect(cancelled.endReason).toBe('user left');
    expect(cancelled.systemEvents.map((e: any) => e.type)).toContain('disconnection');
    expect(
      (await gw(a.token, 'POST', `/agents/${bot.id}/sessions/${one.sessionId}/end`, { status: 'cancelled' }))
        .status,
    ).toBe(409);
    expect(
      (await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hi', sessionId: one.sessionId }))
        .status,
    ).toBe(409);

    const two = (await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello', channel: 'SIP' }))
      .body;
    const completed = await gw(a.token, 'POST', `/agents/${bot.id}/sessions/${two.sessionId}/end`, {
      status: 'completed',
    });
    expect(completed.body).toMatchObject({ status: 'Completed', reason: 'completed by the user' });
    await sessionWhen(two.sessionId, (s) => s.status === 'Completed');
    const bad = await gw(a.token, 'POST', `/agents/${bot.id}/sessions/${two.sessionId}/end`, {
      status: 'failed',
    });
    expect(bad.status).toBe(400);
    expect(
      (await gw(a.token, 'POST', `/agents/${bot.id}/sessions/not-a-uuid/end`, { status: 'completed' }))
        .status,
    ).toBe(400);
  });

  it('completes a session that stays idle past its timeout', async () => {
    const bot = await createAgent(rulesAgent('Sleepy', { idleTimeoutSeconds: 1 }));
    const one = (
      await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello', channel: 'Telegram' })
    ).body;
    const done = await sessionWhen(one.sessionId, (s) => s.status === 'Completed');
    expect(done.endReason).toBe('idle timeout');
    const idle = done.systemEvents.filter((e: any) => e.type === 'disconnection');
    expect(idle).toHaveLength(1);
    expect(idle[0].details).toMatchObject({ by: 'idle_timeout' });
    expect(
      (await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello', sessionId: one.sessionId }))
        .status,
    ).toBe(409);
  });

  it('completes the session after the last turn allowed', async () => {
    const bot = await createAgent(rulesAgent('Short', { maxTurns: 2 }));
    const one = (await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello', channel: 'Web' }))
      .body;
    expect(one.sessionStatus).toBe('Active');
    const two = (
      await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello', sessionId: one.sessionId })
    ).body;
    expect(two).toMatchObject({ sessionStatus: 'Completed', endReason: 'max turns reached' });
    await sessionWhen(one.sessionId, (s) => s.status === 'Completed' && s.messageCount === 4);
  });

  it('validates the invocation against the agent and the session', async () => {
    const bot = await createAgent(
      rulesAgent('Strict', { channels: ['Web', 'Mobile SDK'], sessionTypes: ['chat', 'voice'] }),
    );
    const call = (body: unknown) => gw(a.token, 'POST', `/agents/${bot.id}/invoke`, body);
    const fieldsOf = (res: any) => res.body.errors.map((e: any) => e.field);
    expect(fieldsOf(await call({ message: 'hi' }))).toEqual(['channel']);
    expect(fieldsOf(await call({ message: 'hi', channel: 'Phone' }))).toEqual(['channel']);
    expect(fieldsOf(await call({ message: 'hi', channel: 'Web', sessionType: 'video' }))).toEqual([
      'sessionType',
    ]);
    expect(fieldsOf(await call({ message: '', channel: 'Fax', extra: 1 }))).toEqual(
      expect.arrayContaining(['message', 'channel', 'extra']),
    );
    expect(fieldsOf(await call({ message: 'hi', channel: 'Web', metadata: { 'a.b': 1 } }))[0]).toMatch(
      /^metadata/,
    );
    expect(fieldsOf(await call({ message: 'hi', sessionId: 'nope' }))).toEqual(['sessionId']);
    expect((await call({ message: 'hi', sessionId: '3f2a9c1e-7b4d-4e8a-9c2f-1d3e5a7b9c0d' })).status).toBe(
      404,
    );
    const voice = (await call({ message: 'hi', channel: 'Mobile SDK', sessionType: 'voice' })).body;
    expect(voice.sessionStatus).toBe('Active');
    const wrong = await call({
      message: 'hi',
      sessionId: voice.sessionId,
      channel: 'Web',
      sessionType: 'chat',
    });
    expect(fieldsOf(wrong).sort()).toEqual(['channel', 'sessionType']);
    const raw = await http('POST', `${stack.url}/api/v1/agents/${bot.id}/invoke`, {
      token: a.token,
      rawBody: '{"message":',
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.status).toBe(400);

    // Archived: no new sessions; a session in progress may go on.
    expect((await gw(a.token, 'POST', `/agents/${bot.id}/archive`)).status).toBe(200);
    expect((await call({ message: 'hi', channel: 'Web' })).status).toBe(409);
    expect((await call({ message: 'hi', sessionId: voice.sessionId })).status).toBe(200);
    await sessionWhen(voice.sessionId, (s) => s.sessionType === 'voice' && s.channel === 'Mobile SDK');
  });

  it('never gives two concurrent turns of one session the same positions', async () => {
    const bot = await createAgent(rulesAgent('Crowded'));
    const one = (await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello', channel: 'Web' }))
      .body;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: `echo ${i}`, sessionId: one.sessionId }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThan(0);
    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const positions = ok.flatMap((r) => r.body.messages.map((m: any) => m.position)).sort((x, y) => x - y);
    expect(positions).toEqual(Array.from({ length: ok.length * 2 }, (_, i) => i + 3));
    const session = await sessionWhen(one.sessionId, (s) => s.messageCount === 2 + ok.length * 2);
    expect(session.messages.map((m: any) => m.position)).toEqual(
      Array.from({ length: 2 + ok.length * 2 }, (_, i) => i + 1),
    );
  });

  it('answers a repeated Idempotency-Key with the first turn, without a second one', async () => {
    const bot = await createAgent(rulesAgent('Careful'));
    const headers = { 'idempotency-key': 'turn-1' };
    const first = await gw(
      a.token,
      'POST',
      `/agents/${bot.id}/invoke`,
      { message: 'hello', channel: 'Web' },
      headers,
    );
    const again = await gw(
      a.token,
      'POST',
      `/agents/${bot.id}/invoke`,
      { message: 'hello', channel: 'Web' },
      headers,
    );
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const streamed = await invokeStream(
      `${stack.url}/api/v1/agents/${bot.id}/invoke`,
      { authorization: `Bearer ${a.token}`, ...headers },
      { message: 'hello', channel: 'Web', stream: true },
    );
    expect(streamed.events.at(-1)).toEqual({ event: 'done', data: first.body });
    const different = await gw(
      a.token,
      'POST',
      `/agents/${bot.id}/invoke`,
      { message: 'other', channel: 'Web' },
      headers,
    );
    expect(different.status).toBe(409);
    await sleep(500);
    const session = await sessionWhen(first.body.sessionId, (s) => s.messageCount >= 2);
    expect(session.messageCount).toBe(2);
  });

  it('refuses viewers and keeps organizations apart', async () => {
    const bot = await createAgent(rulesAgent('Private'));
    const own = (await gw(a.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello', channel: 'Web' }))
      .body;
    // Organization B, through the gateway: A's agent and session do not exist for it.
    expect(
      (await gw(b.token, 'POST', `/agents/${bot.id}/invoke`, { message: 'hello', channel: 'Web' })).status,
    ).toBe(404);
    const other = await createAgent(rulesAgent('B bot'), b.token);
    const hijack = await gw(b.token, 'POST', `/agents/${other.id}/invoke`, {
      message: 'hello',
      sessionId: own.sessionId,
    });
    expect(hijack.status).toBe(404);
    expect(
      (await gw(b.token, 'POST', `/agents/${bot.id}/sessions/${own.sessionId}/end`, { status: 'cancelled' }))
        .status,
    ).toBe(404);
    expect((await gw(b.token, 'GET', `/sessions/${own.sessionId}`)).status).toBe(404);
    // Another agent of the same organization cannot continue it either.
    const sibling = await createAgent(rulesAgent('Sibling'));
    expect(
      (await gw(a.token, 'POST', `/agents/${sibling.id}/invoke`, { message: 'hi', sessionId: own.sessionId }))
        .status,
    ).toBe(404);
    // Viewers read agents but neither invoke nor end.
    const agentUrl = stack.services.agent!.url;
    const viewer = { role: 'viewer' as const };
    expect(
      (
        await as(agentUrl, a.orgId, 'POST', `/agents/${bot.id}/invoke`, {
          ...viewer,
          body: { message: 'hi', channel: 'Web' },
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await as(agentUrl, a.orgId, 'POST', `/agents/${bot.id}/sessions/${own.sessionId}/end`, {
          ...viewer,
          body: { status: 'cancelled' },
        })
      ).status,
    ).toBe(403);
    expect((await as(agentUrl, a.orgId, 'GET', `/agents/${bot.id}`, viewer)).status).toBe(200);
    // Directly, without the gateway's identity: 401.
    const direct = await http('POST', `${agentUrl}/api/v1/agents/${bot.id}/invoke`, {
      body: { message: 'hi', channel: 'Web' },
    });
    expect(direct.status).toBe(401);
    expect((await internalHeaders({ orgId: a.orgId }))['x-internal-token']).toBeTruthy();
  });
});
