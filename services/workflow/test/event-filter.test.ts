import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mongoose, { type Connection } from 'mongoose';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { AckPolicy, jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { ensureEventStreams, NO_MESSAGES_SUBJECT, setConsumerFilter } from '@platform/kit';
import { startInfra, startServiceProcess, type ServiceProcess, type TestInfra } from '@platform/testing';
import { caller, engineEnv, waitFor } from '../../execution/test/support.ts';

const steps = [{ id: 'echo', type: 'transform', settings: { expression: 'input' } }];
const durable = 'workflow-event-triggers';

/**
 * The event trigger consumer's filter follows the event types of active triggers (runs on
 * session.completed: triggers.test.ts). Only the workflow service runs here: nothing is executed.
 */
describe('event trigger consumer filter', () => {
  let infra: TestInfra;
  let workflow: ServiceProcess;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let db: Connection;
  const me = caller();
  const base = () => `${workflow.url}/api/v1/workflows`;
  const filterOf = async (name = durable) => {
    const { config } = await jsm.consumers.info('EVENTS', name);
    return config.filter_subjects ?? (config.filter_subject ? [config.filter_subject] : []);
  };
  const publish = async (type: string, data: unknown = {}) => {
    const id = randomUUID();
    const event = { id, type, createdAt: new Date().toISOString(), orgId: me.orgId, data };
    return jetstream(nc).publish(`evt.${type}`, JSON.stringify(event), { msgID: id });
  };

  beforeAll(async () => {
    infra = await startInfra();
    workflow = await startServiceProcess('workflow', { ...infra.env, ...engineEnv });
    nc = await connect({ servers: infra.nats.url });
    jsm = await jetstreamManager(nc);
    db = await mongoose.createConnection(infra.mongo.url, { dbName: 'workflow' }).asPromise();
  });
  afterAll(async () => {
    await db?.close();
    await nc?.close();
    await workflow?.stop();
    await infra?.dispose();
  });

  describe('setConsumerFilter (kit)', () => {
    const name = 'filter-probe';
    let apiCalls: string[];
    let spy: Subscription;

    beforeAll(async () => {
      await ensureEventStreams(nc);
      await jsm.consumers.add('EVENTS', {
        durable_name: name,
        ack_policy: AckPolicy.Explicit,
        filter_subject: 'evt.first.one',
      });
      // The JetStream API requests about the probe, as sent on the bus (update: *.CREATE.*).
      apiCalls = [];
      spy = nc.subscribe('$JS.API.CONSUMER.>', {
        callback: (_err, msg) => {
          if (msg.subject.includes(`.EVENTS.${name}`)) apiCalls.push(msg.subject);
        },
      });
      await nc.flush();
    });
    afterAll(() => spy?.unsubscribe());
    const updates = () => apiCalls.filter((s) => s.includes('.CREATE.'));

    it('sets a new list (unique, sorted), replacing a single filter_subject', async () => {
      const change = await setConsumerFilter(jsm, 'EVENTS', name, ['evt.x.y', 'evt.a.b', 'evt.x.y']);
      expect(change).toEqual({
        updated: true,
        previous: ['evt.first.one'],
        filterSubjects: ['evt.a.b', 'evt.x.y'],
      });
      expect(await filterOf(name)).toEqual(['evt.a.b', 'evt.x.y']);
      await nc.flush();
      expect(updates()).toHaveLength(1);
    });

    it('the same list again (in any order) sends no update', async () => {
      await nc.flush();
      const before = updates().length;
      const change = await setConsumerFilter(jsm, 'EVENTS', name, ['evt.x.y', 'evt.a.b']);
      expect(change.updated).toBe(false);
      await nc.flush();
      expect(updates()).toHaveLength(before);
      expect(apiCalls.at(-1)).toBe(`$JS.API.CONSUMER.INFO.EVENTS.${name}`);
    });

    it('an empty list becomes the placeholder, which delivers nothing', async () => {
      const change = await setConsumerFilter(jsm, 'EVENTS', name, []);
      expect(change).toMatchObject({ updated: true, filterSubjects: [NO_MESSAGES_SUBJECT] });
      expect(NO_MESSAGES_SUBJECT).toBe('evt._none');
      expect(await filterOf(name)).toEqual(['evt._none']);
      const ack = await publish('a.b');
      expect(ack.seq).toBeGreaterThan(0);
      const info = await jsm.consumers.info('EVENTS', name);
      expect(info.num_pending).toBe(0);
      expect(info.delivered.consumer_seq).toBe(0);
      expect((await setConsumerFilter(jsm, 'EVENTS', name, [])).updated).toBe(false);
    });
  });

  it('with no event trigger the filter is the placeholder and no event is delivered', async () => {
    expect(await filterOf()).toEqual([NO_MESSAGES_SUBJECT]);
    // A manual workflow publishes workflow.created; the benchmark's execution events are published too.
    const wf = await me.call('POST', base(), { name: 'manual', trigger: 'manual', steps });
    expect(wf.status).toBe(201);
    for (const status of ['queued', 'running', 'succeeded']) {
      const ack = await publish(`execution.${status}`, { executionId: 'exe_1', workflowId: 'wf_1', status });
      expect(ack.seq).toBeGreaterThan(0);
    }
    await waitFor('workflow.created in the stream', async () => {
      const info = await jsm.streams.info('EVENTS', { subjects_filter: 'evt.workflow.created' });
      return info.state.subjects?.['evt.workflow.created'] ? true : undefined;
    });
    await new Promise((r) => setTimeout(r, 1_500)); // three reloads of the triggers
    const info = await jsm.consumers.info('EVENTS', durable);
    expect(info.config.filter_subjects).toEqual([NO_MESSAGES_SUBJECT]);
    expect(info.num_pending).toBe(0);
    expect(info.num_ack_pending).toBe(0);
    expect(info.delivered.consumer_seq).toBe(0);
  });

  it('follows triggers created, deactivated, reactivated and deleted on this replica at once', async () => {
    const body = (active: boolean) => ({
      name: 'on ticket',
      trigger: 'event',
      triggerConfig: { type: 'ticket.closed' },
      steps,
      active,
    });
    const wf = (await me.call('POST', base(), body(true))).body;
    expect(await filterOf()).toEqual(['evt.ticket.closed']);
    const second = (
      await me.call('POST', base(), { ...body(true), triggerConfig: { type: 'agent.updated' } })
    ).body;
    expect(await filterOf()).toEqual(['evt.agent.updated', 'evt.ticket.closed']);
    await me.call('PUT', `${base()}/${wf.id}`, body(false));
    expect(await filterOf()).toEqual(['evt.agent.updated']);
    await me.call('PUT', `${base()}/${wf.id}`, body(true));
    expect(await filterOf()).toEqual(['evt.agent.updated', 'evt.ticket.closed']);
    // A second trigger of a type already there changes nothing until the last one goes.
    const twin = (await me.call('POST', base(), body(true))).body;
    expect(await filterOf()).toEqual(['evt.agent.updated', 'evt.ticket.closed']);
    expect((await me.call('DELETE', `${base()}/${wf.id}`)).status).toBe(204);
    expect(await filterOf()).toEqual(['evt.agent.updated', 'evt.ticket.closed']);
    expect((await me.call('DELETE', `${base()}/${twin.id}`)).status).toBe(204);
    expect(await filterOf()).toEqual(['evt.agent.updated']);
    await me.call('PUT', `${base()}/${second.id}`, {
      ...body(true),
      trigger: 'manual',
      triggerConfig: {},
    });
    expect(await filterOf()).toEqual([NO_MESSAGES_SUBJECT]);
  });

  it('reconciles changes made elsewhere on the periodic reload, from the full list', async () => {
    const wf = (
      await me.call('POST', base(), {
        name: 'on order',
        trigger: 'event',
        triggerConfig: { type: 'order.paid' },
        steps,
      })
    ).body;
    expect(await filterOf()).toEqual(['evt.order.paid']);
    // A racing replica wrote a list read before this trigger existed.
    await setConsumerFilter(jsm, 'EVENTS', durable, []);
    await waitFor('the filter to be reconciled', async () =>
      (await filterOf()).join() === 'evt.order.paid' ? true : undefined,
    );
    // Another replica removed the trigger (its own filter update lost): the next reload drops it.
    await db.collection('event_triggers').deleteOne({ _id: wf.id } as never);
    await waitFor('the subject to be removed', async () =>
      (await filterOf()).join() === NO_MESSAGES_SUBJECT ? true : undefined,
    );
  });

  it('a restarted replica starts its consumer with the types in the database', async () => {
    await me.call('POST', base(), {
      name: 'on session',
      trigger: 'event',
      triggerConfig: { type: 'session.completed' },
      steps,
    });
    expect(await filterOf()).toEqual(['evt.session.completed']);
    await workflow.stop();
    await setConsumerFilter(jsm, 'EVENTS', durable, ['evt.stale.one']);
    workflow = await startServiceProcess('workflow', { ...infra.env, ...engineEnv });
    expect(await filterOf()).toEqual(['evt.session.completed']);
  });
});
