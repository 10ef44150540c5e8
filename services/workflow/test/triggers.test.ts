import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { http } from '@platform/testing';
import { caller, startEngine, waitFor, waitForStatus, type Engine } from '../../execution/test/support.ts';

const steps = [{ id: 'echo', type: 'transform', settings: { expression: 'input' } }];

/** Webhook and event triggers (schedules: schedule.test.ts). */
describe('triggers', () => {
  let engine: Engine;
  let nc: NatsConnection;
  const me = caller();
  const other = caller();
  const base = () => `${engine.workflow.url}/api/v1/workflows`;
  const executionsOf = async (workflowId: string) =>
    (await me.call('GET', `${engine.execution.url}/api/v1/executions?workflowId=${workflowId}&pageSize=200`))
      .body;

  beforeAll(async () => {
    engine = await startEngine();
    nc = await connect({ servers: engine.infra.nats.url });
  });
  afterAll(async () => {
    await nc?.close();
    await engine?.dispose();
  });

  describe('webhook', () => {
    let wf: any;
    const hook = () => `${engine.workflow.url}/api/v1/hooks/${wf.id}`;
    const sign = (body: string, secret = wf.webhook.secret) =>
      `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

    beforeAll(async () => {
      wf = (await me.call('POST', base(), { name: 'hook', trigger: 'webhook', steps })).body;
    });

    it('starts an execution for a signed body and says which one', async () => {
      const body = JSON.stringify({ order: 42 });
      const res = await http('POST', hook(), {
        rawBody: body,
        headers: { 'content-type': 'application/json', 'x-signature-256': sign(body) },
      });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ workflowId: wf.id, status: 'queued', replayed: false });
      const done = await waitForStatus(me, engine.execution.url, res.body.executionId, [
        'succeeded',
        'failed',
      ]);
      expect(done.trigger.kind).toBe('webhook');
      expect(done.output.body).toEqual({ order: 42 });
      expect(done.output.headers['content-type']).toBe('application/json');
    });

    it('accepts the secret as a token; refuses a wrong or missing secret', async () => {
      const ok = await http('POST', hook(), {
        body: { a: 1 },
        headers: { 'x-webhook-token': wf.webhook.secret },
      });
      expect(ok.status).toBe(202);
      const wrong = await http('POST', hook(), {
        body: { a: 1 },
        headers: { 'x-signature-256': sign('{"a":2}') },
      });
      expect(wrong.status).toBe(401);
      const badToken = await http('POST', hook(), {
        body: { a: 1 },
        headers: { 'x-webhook-token': 'whs_guess' },
      });
      expect(badToken.status).toBe(401);
      const none = await http('POST', hook(), { body: { a: 1 } });
      expect(none.status).toBe(401);
      expect(none.headers.get('content-type')).toContain('application/problem+json');
      const missing = await http('POST', `${engine.workflow.url}/api/v1/hooks/wf_nope`, { body: {} });
      expect(missing.status).toBe(404);
    });

    it('the same call twice with one Idempotency-Key starts one execution', async () => {
      const body = JSON.stringify({ event: 'paid', id: randomUUID() });
      const headers = {
        'content-type': 'application/json',
        'x-signature-256': sign(body),
        'idempotency-key': randomUUID(),
      };
      const first = await http('POST', hook(), { rawBody: body, headers });
      const second = await http('POST', hook(), { rawBody: body, headers });
      expect(first.status).toBe(202);
      expect(second.status).toBe(202);
      expect(second.body).toMatchObject({ executionId: first.body.executionId, replayed: true });
      const changed = JSON.stringify({ event: 'refunded' });
      const conflict = await http('POST', hook(), {
        rawBody: changed,
        headers: { ...headers, 'x-signature-256': sign(changed) },
      });
      expect(conflict.status).toBe(409);
      const list = await executionsOf(wf.id);
      expect(list.items.filter((e: any) => e.id === first.body.executionId)).toHaveLength(1);
      expect(list.total).toBe(3); // signed, token, and this one
    });

    it('a rotated secret replaces the old one; inactive or non-webhook workflows do not answer', async () => {
      const put = await me.call('PUT', `${base()}/${wf.id}`, {
        name: 'hook',
        trigger: 'webhook',
        steps,
        rotateWebhookSecret: true,
      });
      expect(put.body.webhook.secret).toMatch(/^whs_/);
      expect(put.body.webhook.secret).not.toBe(wf.webhook.secret);
      const old = await http('POST', hook(), { body: {}, headers: { 'x-webhook-token': wf.webhook.secret } });
      expect(old.status).toBe(401);
      const fresh = await http('POST', hook(), {
        body: {},
        headers: { 'x-webhook-token': put.body.webhook.secret },
      });
      expect(fresh.status).toBe(202);
      await me.call('PUT', `${base()}/${wf.id}`, { name: 'hook', trigger: 'webhook', steps, active: false });
      const inactive = await http('POST', hook(), {
        body: {},
        headers: { 'x-webhook-token': put.body.webhook.secret },
      });
      expect(inactive.status).toBe(404);
    });
  });

  describe('event', () => {
    const publish = async (orgId: string, type: string, data: unknown, id = randomUUID()) => {
      const event = { id, type, createdAt: new Date().toISOString(), orgId, data };
      await jetstream(nc).publish(`evt.${type}`, JSON.stringify(event), { msgID: id });
      return event;
    };

    it('runs on a matching platform event, with the filter; not for other organizations', async () => {
      const wf = (
        await me.call('POST', base(), {
          name: 'on session',
          trigger: 'event',
          triggerConfig: { type: 'session.completed', where: { 'data.agentId': 'agt_1' } },
          steps,
        })
      ).body;
      // The consumer takes only the types of active triggers (event-filter.test.ts), this one now too.
      const jsm = await jetstreamManager(nc);
      const { config } = await jsm.consumers.info('EVENTS', 'workflow-event-triggers');
      expect(config.filter_subjects).toContain('evt.session.completed');
      expect(config.filter_subjects).not.toContain('evt.session.started');
      const event = await publish(me.orgId, 'session.completed', { agentId: 'agt_1', sessionId: 's1' });
      await publish(me.orgId, 'session.completed', { agentId: 'agt_2' });
      await publish(other.orgId, 'session.completed', { agentId: 'agt_1' });
      await publish(me.orgId, 'session.started', { agentId: 'agt_1' });
      const list = await waitFor('the event execution', async () => {
        const l = await executionsOf(wf.id);
        return l.total >= 1 ? l : undefined;
      });
      const done = await waitForStatus(me, engine.execution.url, list.items[0].id, ['succeeded', 'failed']);
      expect(done.trigger).toMatchObject({
        kind: 'event',
        eventId: event.id,
        eventType: 'session.completed',
      });
      expect(done.output.event.data).toEqual({ agentId: 'agt_1', sessionId: 's1' });
      await new Promise((r) => setTimeout(r, 1500));
      expect((await executionsOf(wf.id)).total).toBe(1);
    });

    it('runs on execution.failed of another workflow (never on its own)', async () => {
      const watcher = (
        await me.call('POST', base(), {
          name: 'on failure',
          trigger: 'event',
          triggerConfig: { type: 'execution.failed' },
          steps,
        })
      ).body;
      const failing = (
        await me.call('POST', base(), {
          name: 'fails',
          trigger: 'manual',
          steps: [{ id: 'boom', type: 'transform', settings: { expression: '$error("boom")' } }],
        })
      ).body;
      const ex = await me.call('POST', `${base()}/${failing.id}/execute`, {});
      await waitForStatus(me, engine.execution.url, ex.body.id, ['failed']);
      const list = await waitFor('the watcher to run', async () => {
        const l = await executionsOf(watcher.id);
        return l.total >= 1 ? l : undefined;
      });
      const done = await waitForStatus(me, engine.execution.url, list.items[0].id, ['succeeded', 'failed']);
      expect(done.output.event.data).toMatchObject({ executionId: ex.body.id, status: 'failed' });
    });
  });
});
