import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInfra, type ServiceProcess, type TestInfra } from '@platform/testing';
import { client, EventPublisher, orgId, Receiver, startWebhook, verify, waitFor } from './helpers.ts';

/**
 * At least once across crashes: the webhook service is killed with SIGKILL (kill -9) at the worst
 * moments and another process takes over from what JetStream and MongoDB kept.
 */
describe('webhook deliveries survive kill -9', () => {
  let infra: TestInfra;
  let receiver: Receiver;
  let events: EventPublisher;
  let svc: ServiceProcess | undefined;
  // Retries 2 s apart leave time to kill the service between attempts; ack wait 2 s, timeout 3 s.
  const env = { WEBHOOK_RETRY_SCHEDULE: '2s,2s,2s', WEBHOOK_TIMEOUT: '3s', WEBHOOK_ACK_WAIT: '2s' };

  beforeAll(async () => {
    infra = await startInfra();
    receiver = await new Receiver().start();
    events = await EventPublisher.connect(infra.nats.url);
  });
  afterAll(async () => {
    await events?.close();
    await svc?.stop();
    await receiver?.close();
    await infra?.dispose();
  });

  const deliveryOf = async (org: string, endpointId: string) =>
    (await client(svc!.url, org).get(`/webhooks/${endpointId}/deliveries`)).body.items[0];

  it('completes a delivery whose service died between two attempts', async () => {
    svc = await startWebhook(infra, env);
    const org = orgId();
    const url = receiver.route((_r, nth) => (nth <= 2 ? { status: 503 } : { status: 200 }));
    const ep = (await client(svc.url, org).post('/webhooks', { url, events: ['execution.failed'] })).body;
    const event = await events.publish(org, 'execution.failed', { executionId: 'e1', workflowId: 'w1' });
    // The first attempt failed and its retry is scheduled: kill -9 now.
    await waitFor(async () => (await deliveryOf(org, ep.id))?.attempts.length === 1);
    await svc.kill();
    svc = await startWebhook(infra, env);
    const done = await waitFor(async () => {
      const d = await deliveryOf(org, ep.id);
      return d?.status === 'succeeded' && d;
    }, 30_000);
    expect(done.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503, 200]);
    const got = receiver.at(url);
    expect(got).toHaveLength(3);
    for (const r of got) expect(verify(ep.secret, r)).toEqual(event);
  });

  it('sends again an attempt that was in flight when the service died', async () => {
    const org = orgId();
    // The first request hangs (the service dies while waiting for it); later ones succeed.
    const url = receiver.route((_r, nth) => (nth === 1 ? 'hang' : { status: 200 }));
    const ep = (await client(svc!.url, org).post('/webhooks', { url, events: ['session.failed'] })).body;
    const event = await events.publish(org, 'session.failed', {
      sessionId: 's1',
      agentId: 'a1',
      status: 'Failed',
    });
    await waitFor(() => receiver.at(url).length === 1);
    await svc!.kill();
    svc = await startWebhook(infra, env);
    const done = await waitFor(async () => {
      const d = await deliveryOf(org, ep.id);
      return d?.status === 'succeeded' && d;
    }, 40_000);
    // The lost attempt left no record; it ran again as attempt 1 with the same webhook-id.
    expect(done.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200 })]);
    const got = receiver.at(url);
    expect(got.length).toBeGreaterThanOrEqual(2);
    expect(new Set(got.map((r) => r.headers['webhook-id']))).toEqual(new Set([event.id]));
  });

  it('delivers events published while no webhook service was running', async () => {
    const org = orgId();
    const ep = (await client(svc!.url, org).post('/webhooks', { url: receiver.route(), events: ['*'] })).body;
    await svc!.kill();
    svc = undefined;
    const sent = [];
    for (let i = 0; i < 5; i++)
      sent.push(await events.publish(org, 'workflow.updated', { workflowId: `w${i}` }));
    svc = await startWebhook(infra, env);
    await waitFor(() => receiver.at(ep.url).length >= 5, 30_000);
    const ids = new Set(receiver.at(ep.url).map((r) => JSON.parse(r.body).id));
    for (const e of sent) expect(ids.has(e.id)).toBe(true);
  });
});
