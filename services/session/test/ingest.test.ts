import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliverPolicy, jetstreamManager } from '@nats-io/jetstream';
import { sessionIngest, sessionRpc } from '@platform/contracts';
import { publishCommand, rpcRequest } from '@platform/kit';
import {
  call,
  newOrg,
  publishEnd,
  publishMessage,
  publishStart,
  publishSystemEvent,
  startSessionHarness,
  waitFor,
  type SessionHarness,
} from './helpers.ts';

/** Ingest over JetStream: idempotent handlers, message order, transitions, events and the RPC. */
describe('session ingest', () => {
  let h: SessionHarness;
  const org = newOrg();

  beforeAll(async () => {
    h = await startSessionHarness();
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const detail = (id: string, orgId = org) => call('GET', `${h.url}/${id}`, orgId);

  it('creates an Active session from a start command, with its status event and an Ongoing duration', async () => {
    const start = await publishStart(h.js, {
      orgId: org,
      metadata: { user: { tier: 'gold' }, tags: ['vip'] },
    });
    const res = await waitFor(async () => {
      const r = await detail(start.sessionId);
      return r.status === 200 ? r : undefined;
    });
    expect(res.body).toMatchObject({
      id: start.sessionId,
      agentName: 'Support Bot',
      channel: 'Web',
      sessionType: 'chat',
      status: 'Active',
      duration: null,
      durationDisplay: 'Ongoing',
      messageCount: 0,
      metadata: { user: { tier: 'gold' }, tags: ['vip'] },
    });
    expect(res.body).not.toHaveProperty('endTime');
    expect(res.body.systemEvents).toEqual([
      expect.objectContaining({ type: 'status_change', details: expect.objectContaining({ to: 'Active' }) }),
    ]);
  });

  it('keeps message order by position and adds nothing twice when a message is redelivered', async () => {
    const start = await publishStart(h.js, { orgId: org });
    const base = { orgId: org, sessionId: start.sessionId };
    // Published out of order, and message 2 twice under different command ids (a second copy that
    // JetStream's duplicate window does not catch, as a redelivery after a crash would be).
    await publishMessage(h.js, { ...base, position: 3, sender: 'agent', content: 'third' });
    await publishMessage(h.js, { ...base, position: 1, sender: 'user', content: 'first' });
    const second = await publishMessage(h.js, { ...base, position: 2, sender: 'agent', content: 'second' });
    await publishMessage(h.js, { ...base, position: 2, sender: 'agent', content: 'second' });
    // The very same command again (same Nats-Msg-Id): dropped by the stream.
    await publishCommand(h.js, sessionIngest.agent.message, second);
    const res = await waitFor(async () => {
      const r = await detail(start.sessionId);
      return r.body?.messageCount === 3 && r.body.messages.length === 3 ? r : undefined;
    });
    await new Promise((r) => setTimeout(r, 500));
    const again = await detail(start.sessionId);
    expect(again.body.messages.map((m: any) => [m.position, m.sender, m.content])).toEqual([
      [1, 'user', 'first'],
      [2, 'agent', 'second'],
      [3, 'agent', 'third'],
    ]);
    expect(res.body.messageCount).toBe(3);

    const page = await call('GET', `${h.url}/${start.sessionId}/messages?after=1&limit=1`, org);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ items: [expect.objectContaining({ position: 2 })], nextAfter: 2 });
    const tail = await call('GET', `${h.url}/${start.sessionId}/messages?after=2&limit=5`, org);
    expect(tail.body.nextAfter).toBeNull();
    expect(tail.body.items.map((m: any) => m.position)).toEqual([3]);
  });

  it('pages the transcript of a long session in the detail and by /messages', async () => {
    const start = await publishStart(h.js, { orgId: org });
    for (let p = 1; p <= 25; p++) {
      await publishMessage(h.js, {
        orgId: org,
        sessionId: start.sessionId,
        position: p,
        sender: p % 2 ? 'user' : 'agent',
        content: `m${p}`,
      });
    }
    // messageCount follows the highest position; wait until every message is stored.
    await waitFor(async () => (await detail(start.sessionId)).body?.messages?.length === 25);
    const first = await call('GET', `${h.url}/${start.sessionId}?messagesLimit=10`, org);
    expect(first.body.messages.map((m: any) => m.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(first.body.messagesNextAfter).toBe(10);
    const positions: number[] = first.body.messages.map((m: any) => m.position);
    let after = first.body.messagesNextAfter;
    while (after !== null) {
      const next = await call('GET', `${h.url}/${start.sessionId}/messages?after=${after}&limit=10`, org);
      positions.push(...next.body.items.map((m: any) => m.position));
      after = next.body.nextAfter;
    }
    expect(positions).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it('holds a message that arrives before its session starts until the start is handled', async () => {
    const sessionId = randomUUID();
    await publishMessage(h.js, { orgId: org, sessionId, position: 1, sender: 'user', content: 'early' });
    await new Promise((r) => setTimeout(r, 300));
    await publishStart(h.js, { orgId: org, sessionId });
    const res = await waitFor(async () => {
      const r = await detail(sessionId);
      return r.body?.messages?.length === 1 ? r : undefined;
    });
    expect(res.body.messages[0].content).toBe('early');
  });

  it('records system events once each, from adapters and the agent service', async () => {
    const t0 = Date.now() - 10_000;
    const start = await publishStart(
      h.js,
      { orgId: org, channel: 'Phone', sessionType: 'voice', startTime: new Date(t0) },
      'adapter',
    );
    const evt = {
      id: 'conn-1',
      orgId: org,
      sessionId: start.sessionId,
      type: 'connection_established' as const,
      timestamp: new Date(t0 + 1000).toISOString(),
      details: { ip: '203.0.113.9' },
    };
    await publishSystemEvent(h.js, evt);
    await publishSystemEvent(h.js, { ...evt }); // same command id: one event
    await publishSystemEvent(h.js, {
      orgId: org,
      sessionId: start.sessionId,
      type: 'agent_handoff',
      timestamp: new Date(t0 + 2000).toISOString(),
      details: { toAgentId: 'agent-2' },
    });
    const res = await waitFor(async () => {
      const r = await detail(start.sessionId);
      return r.body?.systemEvents?.length === 3 ? r : undefined;
    });
    await new Promise((r) => setTimeout(r, 300));
    const again = await detail(start.sessionId);
    expect(again.body.systemEvents.map((e: any) => e.type)).toEqual([
      'status_change',
      'connection_established',
      'agent_handoff',
    ]);
    expect(res.body.systemEvents[1].details).toMatchObject({ ip: '203.0.113.9', source: 'adapter' });
    const page = await call('GET', `${h.url}/${start.sessionId}/events?limit=2`, org);
    expect(page.body.items).toHaveLength(2);
    const rest = await call(
      'GET',
      `${h.url}/${start.sessionId}/events?limit=2&cursor=${page.body.nextCursor}`,
      org,
    );
    expect(rest.body.items.map((e: any) => e.type)).toEqual(['agent_handoff']);
    expect(rest.body.nextCursor).toBeNull();
  });

  it('ends a session once: Active → Completed; a redelivered end adds nothing; another end is refused', async () => {
    const startTime = new Date(Date.now() - 90_000);
    const start = await publishStart(h.js, { orgId: org, startTime });
    const endTime = new Date(startTime.getTime() + 75_000).toISOString();
    const end = await publishEnd(h.js, {
      orgId: org,
      sessionId: start.sessionId,
      status: 'Completed',
      endTime,
    });
    await publishEnd(h.js, { ...end, id: 'end-again' }); // redelivery under another id
    await publishEnd(h.js, { orgId: org, sessionId: start.sessionId, status: 'Failed', reason: 'late' });
    const res = await waitFor(async () => {
      const r = await detail(start.sessionId);
      return r.body?.status === 'Completed' ? r : undefined;
    });
    await new Promise((r) => setTimeout(r, 1000));
    const again = await detail(start.sessionId);
    expect(again.body).toMatchObject({
      status: 'Completed',
      endTime,
      duration: 1.25,
      durationDisplay: '1.3 min',
    });
    expect(
      again.body.systemEvents.filter((e: any) => e.type === 'status_change').map((e: any) => e.details.to),
    ).toEqual(['Active', 'Completed']);
    expect(res.body.startTime).toBe(startTime.toISOString());
  });

  it('publishes evt.session.started and evt.session.<end> once per session', async () => {
    const start = await publishStart(h.js, { orgId: org, channel: 'SIP' });
    await publishEnd(h.js, {
      orgId: org,
      sessionId: start.sessionId,
      status: 'Cancelled',
      reason: 'user hung up',
    });
    await waitFor(async () => (await detail(start.sessionId)).body?.status === 'Cancelled');
    await publishEnd(h.js, { orgId: org, sessionId: start.sessionId, status: 'Cancelled' });
    await new Promise((r) => setTimeout(r, 1000));
    const jsm = await jetstreamManager(h.nc);
    const consumer = await h.js.consumers.get('EVENTS', {
      filter_subjects: ['evt.session.started', 'evt.session.cancelled'],
      deliver_policy: DeliverPolicy.All,
    });
    const seen: any[] = [];
    const info = await jsm.streams.info('EVENTS');
    for (let i = 0; i < info.state.messages; i++) {
      const m = await consumer.next({ expires: 1000 });
      if (!m) break;
      const e = m.json<any>();
      if (e.data.sessionId === start.sessionId) seen.push(e);
    }
    expect(seen.map((e) => e.type)).toEqual(['session.started', 'session.cancelled']);
    expect(seen[1]).toMatchObject({
      orgId: org,
      data: { status: 'Cancelled', channel: 'SIP', reason: 'user hung up', agentName: 'Support Bot' },
    });
    expect(typeof seen[1].data.duration).toBe('number');
  });

  it('answers svc.session.get with status and last position, scoped to the organization', async () => {
    const start = await publishStart(h.js, { orgId: org });
    await publishMessage(h.js, {
      orgId: org,
      sessionId: start.sessionId,
      position: 1,
      sender: 'user',
      content: 'hi',
    });
    const state = await waitFor(async () => {
      const s = await rpcRequest(h.nc, sessionRpc.get, { orgId: org, sessionId: start.sessionId });
      return s.lastPosition === 1 ? s : undefined;
    });
    expect(state).toMatchObject({ id: start.sessionId, status: 'Active', lastPosition: 1 });
    await expect(
      rpcRequest(h.nc, sessionRpc.get, { orgId: newOrg(), sessionId: start.sessionId }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it('dead-letters invalid commands (metadata keys FerretDB refuses) and creates nothing', async () => {
    const sessionId = randomUUID();
    await h.js.publish(
      'sessions.ingest.agent.start',
      JSON.stringify({
        id: 'bad-1',
        orgId: org,
        sessionId,
        agentId: 'a',
        agentName: 'A',
        agentVersion: '1',
        channel: 'Web',
        sessionType: 'chat',
        metadata: { 'user.name': 'x', $where: 'y' },
      }),
    );
    const jsm = await jetstreamManager(h.nc);
    await waitFor(async () => {
      const info = await jsm.streams.info('DEADLETTER');
      return info.state.messages > 0;
    });
    expect((await detail(sessionId)).status).toBe(404);
    expect(() =>
      publishCommand(h.js, sessionIngest.agent.start, {
        id: 'bad-2',
        orgId: org,
        sessionId,
        agentId: 'a',
        agentName: 'A',
        agentVersion: '1',
        channel: 'Fax' as never,
        sessionType: 'chat',
      }),
    ).rejects.toThrow();
  });
});
