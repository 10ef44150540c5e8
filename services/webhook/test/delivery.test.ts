import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInfra, type ServiceProcess, type TestInfra } from '@platform/testing';
import { client, EventPublisher, orgId, Receiver, startWebhook, verify, waitFor } from './helpers.ts';

/** Signed deliveries to a real local receiver, verified with the Standard Webhooks reference code. */
describe('webhook deliveries', () => {
  let infra: TestInfra;
  let svc: ServiceProcess;
  let events: EventPublisher;
  let receiver: Receiver;

  beforeAll(async () => {
    infra = await startInfra();
    [svc, receiver] = await Promise.all([
      startWebhook(infra, { WEBHOOK_DISABLE_AFTER: '6s' }),
      new Receiver().start(),
    ]);
    events = await EventPublisher.connect(infra.nats.url);
  });
  afterAll(async () => {
    await events?.close();
    await svc?.stop();
    await receiver?.close();
    await infra?.dispose();
  });

  const register = async (org: string, events: string[], url = receiver.route()) => {
    const res = await client(svc.url, org).post('/webhooks', { url, events });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, secret: res.body.secret as string, url };
  };
  const deliveriesOf = async (org: string, endpointId: string) =>
    (await client(svc.url, org).get(`/webhooks/${endpointId}/deliveries`)).body;

  it('delivers a signed event that the reference verifier accepts', async () => {
    const org = orgId();
    const ep = await register(org, ['session.started']);
    const event = await events.publish(org, 'session.started', {
      sessionId: 's1',
      agentId: 'a1',
      status: 'Active',
    });
    const [got] = await waitFor(() => receiver.at(ep.url).length > 0 && receiver.at(ep.url));
    expect(verify(ep.secret, got!)).toEqual(event);
    expect(JSON.parse(got!.body)).toEqual(event);
    expect(got!.headers['webhook-id']).toBe(event.id);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(got!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got!)).toThrow();
    const log = await waitFor(async () => {
      const page = await deliveriesOf(org, ep.id);
      return page.items[0]?.status === 'succeeded' && page;
    });
    expect(log).toMatchObject({ total: 1, items: [{ eventId: event.id, eventType: 'session.started' }] });
    expect(log.items[0].attempts).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 200, error: null, responseBody: 'ok' }),
    ]);
  });

  it('matches types: `*` takes all but session.message, which is opt-in', async () => {
    const org = orgId();
    const all = await register(org, ['*']);
    const messages = await register(org, ['session.message']);
    const other = await register(org, ['workflow.deleted']);
    await events.publish(org, 'session.message', { sessionId: 's1', message: {} });
    const started = await events.publish(org, 'execution.running', { executionId: 'e1' });
    await waitFor(() => receiver.at(all.url).length === 1 && receiver.at(messages.url).length === 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(JSON.parse(receiver.at(all.url)[0]!.body).id).toBe(started.id);
    expect(JSON.parse(receiver.at(messages.url)[0]!.body).type).toBe('session.message');
    expect(receiver.at(all.url)).toHaveLength(1);
    expect(receiver.at(other.url)).toHaveLength(0);
  });

  it('signs with both secrets during a rotation grace period, then only the new one', async () => {
    const org = orgId();
    const ep = await register(org, ['workflow.updated']);
    const c = client(svc.url, org);
    const rotated = (await c.post(`/webhooks/${ep.id}/rotate-secret`, {})).body;
    await events.publish(org, 'workflow.updated', { workflowId: 'w1' });
    const [during] = await waitFor(() => receiver.at(ep.url).length === 1 && receiver.at(ep.url));
    expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(rotated.secret, during!)).toBeTruthy();
    expect(verify(ep.secret, during!)).toBeTruthy();

    const again = (await c.post(`/webhooks/${ep.id}/rotate-secret`, { gracePeriodSeconds: 0 })).body;
    await events.publish(org, 'workflow.updated', { workflowId: 'w1' });
    const after = await waitFor(() => receiver.at(ep.url).length === 2 && receiver.at(ep.url)[1]);
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verify(again.secret, after)).toBeTruthy();
    expect(() => verify(rotated.secret, after)).toThrow();
  });

  it('retries a receiver that fails twice, then succeeds, with the same webhook-id', async () => {
    const org = orgId();
    const url = receiver.route((_r, nth) => (nth <= 2 ? { status: 500, body: 'boom' } : { status: 204 }));
    const ep = await register(org, ['execution.failed'], url);
    const event = await events.publish(org, 'execution.failed', { executionId: 'e1', workflowId: 'w1' });
    const log = await waitFor(async () => {
      const page = await deliveriesOf(org, ep.id);
      return page.items[0]?.status === 'succeeded' && page;
    });
    expect(log.items[0].attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 204]);
    expect(log.items[0].attempts[0]).toMatchObject({ error: 'HTTP 500', responseBody: 'boom' });
    const got = receiver.at(url);
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.id]));
    for (const r of got) expect(verify(ep.secret, r)).toEqual(event);
    // Success ends the failure streak.
    expect((await client(svc.url, org).get(`/webhooks/${ep.id}`)).body.failingSince).toBeNull();
  });

  it('honours Retry-After on 429', async () => {
    const org = orgId();
    const url = receiver.route((_r, nth) =>
      nth === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 },
    );
    await register(org, ['agent.created'], url);
    await events.publish(org, 'agent.created', { agentId: 'a1' });
    const got = await waitFor(() => receiver.at(url).length === 2 && receiver.at(url), 10_000);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(1_900);
  });

  it('gives up after the schedule, and a replay delivers it again with the same id', async () => {
    const org = orgId();
    let healthy = false;
    const url = receiver.route(() => (healthy ? { status: 200 } : { status: 502 }));
    const ep = await register(org, ['workflow.created'], url);
    const c = client(svc.url, org);
    const event = await events.publish(org, 'workflow.created', { workflowId: 'w9' });
    // Four attempts in all (the first and the three retries of the test schedule).
    const failed = await waitFor(async () => {
      const page = await deliveriesOf(org, ep.id);
      return page.items[0]?.status === 'failed' && page.items[0];
    });
    expect(failed.attempts).toHaveLength(4);
    expect(failed.nextAttemptAt).toBeNull();
    expect((await c.get(`/webhooks/${ep.id}/deliveries?status=failed`)).body.total).toBe(1);
    expect((await c.get(`/webhooks/${ep.id}/deliveries?status=succeeded`)).body.total).toBe(0);

    healthy = true;
    const replay = await c.post(`/webhooks/${ep.id}/deliveries/${failed.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body.status).toBe('pending');
    const done = await waitFor(async () => {
      const page = await deliveriesOf(org, ep.id);
      return page.items[0]?.status === 'succeeded' && page.items[0];
    });
    expect(done.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    const last = receiver.at(url).at(-1)!;
    expect(last.headers['webhook-id']).toBe(event.id);
    expect(verify(ep.secret, last)).toEqual(event);

    expect((await c.post(`/webhooks/${ep.id}/deliveries/dlv_nothing/replay`)).status).toBe(404);
    const other = client(svc.url, orgId());
    expect((await other.get(`/webhooks/${ep.id}/deliveries`)).status).toBe(404);
  });

  it('refuses to replay a delivery still in progress', async () => {
    const org = orgId();
    const url = receiver.route(() => 'hang');
    const ep = await register(org, ['workflow.deleted'], url);
    await events.publish(org, 'workflow.deleted', { workflowId: 'w1' });
    const pending = await waitFor(async () => (await deliveriesOf(org, ep.id)).items[0]);
    const res = await client(svc.url, org).post(`/webhooks/${ep.id}/deliveries/${pending.id}/replay`);
    expect(res.status).toBe(409);
  });

  it('disables an endpoint that answers 410 and tells the organization', async () => {
    const org = orgId();
    const goneUrl = receiver.route(() => ({ status: 410 }));
    const gone = await register(org, ['execution.cancelled'], goneUrl);
    const watcher = await register(org, ['*']);
    await events.publish(org, 'execution.cancelled', { executionId: 'e1' });
    const c = client(svc.url, org);
    const disabled = await waitFor(async () => {
      const ep = (await c.get(`/webhooks/${gone.id}`)).body;
      return !ep.enabled && ep;
    });
    expect(disabled.disabledReason).toBe('gone');
    expect(receiver.at(goneUrl)).toHaveLength(1);
    const log = (await deliveriesOf(org, gone.id)).items[0];
    expect(log).toMatchObject({ status: 'failed', attempts: [expect.objectContaining({ statusCode: 410 })] });
    // The webhook.disabled event goes to the other endpoint and into the recent events.
    const notice = await waitFor(() =>
      receiver.at(watcher.url).find((r) => JSON.parse(r.body).type === 'webhook.disabled'),
    );
    expect(verify(watcher.secret, notice)).toMatchObject({
      orgId: org,
      data: { endpointId: gone.id, reason: 'gone', url: goneUrl },
    });
    const recent = (await c.get('/events?type=webhook.disabled')).body;
    expect(recent.total).toBe(1);
    // Nothing more is sent to a disabled endpoint.
    await events.publish(org, 'execution.cancelled', { executionId: 'e2' });
    await waitFor(() => receiver.at(watcher.url).length >= 3);
    expect(receiver.at(goneUrl)).toHaveLength(1);
  });

  it('disables an endpoint that keeps failing for the configured period', async () => {
    const org = orgId();
    const url = receiver.route(() => ({ status: 500 }));
    const ep = await register(org, ['workflow.created'], url);
    const c = client(svc.url, org);
    await events.publish(org, 'workflow.created', { workflowId: 'w1' });
    const failing = await waitFor(async () => (await c.get(`/webhooks/${ep.id}`)).body.failingSince);
    expect(Date.parse(failing)).toBeLessThanOrEqual(Date.now());
    // Events keep coming and every attempt fails; after WEBHOOK_DISABLE_AFTER (6 s here) it is off.
    const disabled = await waitFor(
      async () => {
        const body = (await c.get(`/webhooks/${ep.id}`)).body;
        if (body.enabled) await events.publish(org, 'workflow.created', { workflowId: 'w1' });
        return !body.enabled && body;
      },
      20_000,
      500,
    );
    expect(disabled.disabledReason).toBe('failing');
    const notice = await waitFor(async () => (await c.get('/events?type=webhook.disabled')).body.items[0]);
    expect(notice.data).toMatchObject({ endpointId: ep.id, reason: 'failing' });
    // Enabling it again starts a fresh period.
    const enabled = await c.patch(`/webhooks/${ep.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });

  it('a dead endpoint does not slow a healthy one', async () => {
    const org = orgId();
    const deadUrl = receiver.route(() => 'hang');
    const dead = await register(org, ['connection.failing'], deadUrl);
    const healthy = await register(org, ['connection.failing']);
    const count = 30;
    for (let i = 0; i < count; i++)
      await events.publish(org, 'connection.failing', { connectionId: `c${i}` });
    // Every healthy delivery arrives while the dead endpoint's first attempts are still hanging
    // (timeout 5 s, nothing recorded yet): the dead one holds its own slots only.
    await waitFor(() => receiver.at(healthy.url).length === count, 20_000, 50);
    const deadLog = await deliveriesOf(org, dead.id);
    expect(deadLog.total).toBe(count);
    expect(deadLog.items.every((d: { attempts: unknown[] }) => d.attempts.length === 0)).toBe(true);
    // At most the per-endpoint cap (4) is in flight to the dead one.
    expect(receiver.at(deadUrl).length).toBeLessThanOrEqual(4);
    const first = await waitFor(async () =>
      (await deliveriesOf(org, dead.id)).items.find((d: { attempts: unknown[] }) => d.attempts.length > 0),
    );
    expect(first.attempts[0]).toMatchObject({ statusCode: null, error: expect.stringContaining('in time') });
    await client(svc.url, org).delete(`/webhooks/${dead.id}`);
  });

  it('sends a ping to one endpoint on request', async () => {
    const org = orgId();
    const ep = await register(org, ['workflow.created']);
    const c = client(svc.url, org);
    // Also to a disabled endpoint: a way to check it before enabling it again.
    await c.patch(`/webhooks/${ep.id}`, { enabled: false });
    const res = await c.post(`/webhooks/${ep.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ eventType: 'webhook.ping', status: 'pending' });
    const [got] = await waitFor(() => receiver.at(ep.url).length === 1 && receiver.at(ep.url));
    expect(verify(ep.secret, got!)).toMatchObject({
      type: 'webhook.ping',
      orgId: org,
      data: { endpointId: ep.id },
    });
    await waitFor(async () => (await deliveriesOf(org, ep.id)).items[0]?.status === 'succeeded');
  });
});
