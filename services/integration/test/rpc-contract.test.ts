import { headers as natsHeaders } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationRpc } from '@platform/contracts';
import { AppError, NotFoundError, rpcRequest, TimeoutError } from '@platform/kit';
import { TELEGRAM_TOKEN } from './fakes/messaging.ts';
import { newOrg, startHarness, type Harness } from './helpers.ts';

/** svc.integration.run-action as other services see it: scoping by organization, payload checks, typed errors. */
describe('run-action RPC contract', () => {
  let h: Harness;
  const orgA = newOrg('a');
  const orgB = newOrg('b');
  let telegramId: string;
  let hookId: string;
  let slowId: string;

  beforeAll(async () => {
    h = await startHarness({ ACTION_TIMEOUT_MS: '500', MAX_RESPONSE_BYTES: '4000000' });
    const telegram = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: {
        integrationId: 'telegram',
        name: 'Bot',
        credentials: { botToken: TELEGRAM_TOKEN },
        settings: { defaultChatId: 7 },
      },
    });
    telegramId = telegram.body.id;
    const hook = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: { integrationId: 'webhook', name: 'Hook', credentials: { url: `${h.fake.url}/hook/rpc` } },
    });
    hookId = hook.body.id;
    const slow = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: {
        integrationId: 'http',
        name: 'Slow',
        credentials: { authKind: 'none' },
        settings: { baseUrl: `${h.fake.url}/rest/api` },
      },
    });
    slowId = slow.body.id;
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('runs an action for the owning organization, through the kit typed client', async () => {
    const reply = await rpcRequest(
      h.nc,
      integrationRpc.runAction,
      { orgId: orgA, connectionId: telegramId, action: 'sendMessage', input: { text: 'hi' } },
      { timeoutMs: 5_000 },
    );
    expect(reply).toMatchObject({
      connectionId: telegramId,
      integrationId: 'telegram',
      action: 'sendMessage',
      output: { messageId: 42, chatId: 7 },
    });
    expect(reply.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("refuses another organization's connection as not found, over NATS as over HTTP", async () => {
    const payload = { orgId: orgB, connectionId: telegramId, action: 'sendMessage', input: { text: 'hi' } };
    const sentBefore = h.fake.requests.filter((r) => r.path.endsWith('/sendMessage')).length;
    const raw = await h.rpc('svc.integration.run-action', payload);
    expect(raw).toMatchObject({ ok: false, error: { kind: 'not_found', retryable: false } });
    await expect(rpcRequest(h.nc, integrationRpc.runAction, payload)).rejects.toBeInstanceOf(NotFoundError);
    expect(h.fake.requests.filter((r) => r.path.endsWith('/sendMessage')).length).toBe(sentBefore);
    const stream = await h.rpc('svc.integration.chat-stream', {
      orgId: orgB,
      connectionId: telegramId,
      deliverTo: 'x.y',
      input: { messages: [{ role: 'user', content: 'x' }] },
    });
    expect(stream).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    const getB = await h.rpc('svc.integration.get-connection', { orgId: orgB, connectionId: telegramId });
    expect(getB).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    const getA = await h.rpc('svc.integration.get-connection', { orgId: orgA, connectionId: telegramId });
    expect(getA).toMatchObject({
      ok: true,
      data: { id: telegramId, integrationId: 'telegram', status: 'active' },
    });
    expect(JSON.stringify(getA)).not.toContain(TELEGRAM_TOKEN);
    // The chat stream only serves model-provider connections.
    const notAi = await h.rpc('svc.integration.chat-stream', {
      orgId: orgA,
      connectionId: telegramId,
      deliverTo: 'x.y',
      input: { messages: [{ role: 'user', content: 'x' }] },
    });
    expect(notAi).toMatchObject({
      ok: false,
      error: { kind: 'validation', errors: [{ field: 'connectionId' }] },
    });
  });

  it('validates the payload, the action name and the input, naming fields', async () => {
    const missing = await h.rpc('svc.integration.run-action', {
      connectionId: telegramId,
      action: 'sendMessage',
      timeoutMs: 10,
    });
    // Payload errors are answered by the kit before the handler; `retryable` absent means false.
    expect(missing).toMatchObject({ ok: false, error: { kind: 'validation' } });
    expect(missing.error.retryable ?? false).toBe(false);
    expect(missing.error.errors.map((e: any) => e.field).sort()).toEqual(['orgId', 'timeoutMs']);
    const notJson = JSON.parse(
      (await h.nc.request('svc.integration.run-action', 'not json', { timeout: 5_000 })).string(),
    );
    expect(notJson).toMatchObject({ ok: false, error: { kind: 'validation' } });
    const unknownAction = await h.rpc('svc.integration.run-action', {
      orgId: orgA,
      connectionId: telegramId,
      action: 'fly',
    });
    expect(unknownAction).toMatchObject({
      ok: false,
      error: { kind: 'validation', errors: [{ field: 'action' }] },
    });
    expect(unknownAction.error.errors[0].message).toContain('sendMessage');
    const badInput = await h.rpc('svc.integration.run-action', {
      orgId: orgA,
      connectionId: telegramId,
      action: 'sendMessage',
      input: { text: '', parseMode: 'Fancy' },
    });
    expect(badInput.error.errors.map((e: any) => e.field).sort()).toEqual(['input.parseMode', 'input.text']);
    await expect(
      rpcRequest(h.nc, integrationRpc.runAction, { orgId: orgA, connectionId: telegramId, action: 'fly' }),
    ).rejects.toMatchObject({ kind: 'validation', status: 400 });
  });

  it('enforces the default deadline (ACTION_TIMEOUT_MS) and a shorter one asked by the caller', async () => {
    const byDefault = await h.rpc('svc.integration.run-action', {
      orgId: orgA,
      connectionId: slowId,
      action: 'request',
      input: { path: '/slow' },
    });
    expect(byDefault).toMatchObject({ ok: false, error: { kind: 'timeout', retryable: true } });
    await expect(
      rpcRequest(h.nc, integrationRpc.runAction, {
        orgId: orgA,
        connectionId: slowId,
        action: 'request',
        input: { path: '/slow' },
        timeoutMs: 200,
      }),
    ).rejects.toBeInstanceOf(TimeoutError);
    const ok = await h.rpc('svc.integration.run-action', {
      orgId: orgA,
      connectionId: slowId,
      action: 'request',
      input: { path: '/fast' },
    });
    expect(ok.ok).toBe(true);
  });

  it('answers a typed error, not silence, when the output is larger than a NATS message may be', async () => {
    const reply = await h.rpc('svc.integration.run-action', {
      orgId: orgA,
      connectionId: slowId,
      action: 'request',
      input: { path: '/big' },
      timeoutMs: 5_000,
    });
    expect(reply).toMatchObject({ ok: false, error: { kind: 'validation', retryable: false } });
    expect(reply.error.message).toContain('too large');
  });

  it('takes the request id from the payload or the NATS header and passes it on as idempotency key', async () => {
    await h.rpc('svc.integration.run-action', {
      orgId: orgA,
      connectionId: hookId,
      action: 'post',
      input: { payload: { a: 1 } },
      requestId: 'exec-9:step-1',
    });
    const fromPayload = h.fake.requests.filter((r) => r.path === '/hook/rpc').at(-1)!;
    expect(fromPayload.headers['idempotency-key']).toBe('exec-9:step-1');
    const hdrs = natsHeaders();
    hdrs.set('X-Request-Id', 'req-from-header');
    await h.nc.request(
      'svc.integration.run-action',
      JSON.stringify({ orgId: orgA, connectionId: hookId, action: 'post', input: { payload: 2 } }),
      { timeout: 5_000, headers: hdrs },
    );
    const fromHeader = h.fake.requests.filter((r) => r.path === '/hook/rpc').at(-1)!;
    expect(fromHeader.headers['webhook-id']).toBe('req-from-header');
  });

  it('maps errors to the kit error classes on the caller side', async () => {
    try {
      await rpcRequest(h.nc, integrationRpc.runAction, {
        orgId: orgA,
        connectionId: telegramId,
        action: 'sendMessage',
        input: { chatId: 'flood', text: 'x' },
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe('unavailable');
    }
  });
});
