import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mongoose, { type Connection } from 'mongoose';
import { startInfra, startServiceProcess, type ServiceProcess, type TestInfra } from '@platform/testing';
import { as, eventually, newOrg, rulesAgent } from './support.ts';

/**
 * The conversation reaches the session service in order and exactly once: across two replicas of the
 * agent service (idle timeouts end a session once), through a NATS outage (commands wait and are
 * published in order afterwards), and when a command is published twice (stored once).
 */
describe('conversation bookkeeping', () => {
  let infra: TestInfra;
  let session: ServiceProcess;
  let replicas: ServiceProcess[];
  let db: Connection;
  const org = newOrg();

  beforeAll(async () => {
    infra = await startInfra();
    const env = {
      ...infra.env,
      IDLE_SWEEP_MS: '100',
      COMMAND_RELAY_MS: '300',
      COMMAND_RELAY_AGE_MS: '1000',
      PUBLISH_TIMEOUT_MS: '1000',
    };
    session = await startServiceProcess('session', infra.env);
    replicas = await Promise.all([startServiceProcess('agent', env), startServiceProcess('agent', env)]);
    db = await mongoose.createConnection(infra.mongo.url, { dbName: 'agent' }).asPromise();
  });
  afterAll(async () => {
    await db?.close();
    await Promise.all([session?.stop(), ...(replicas ?? []).map((r) => r.stop())]);
    await infra?.dispose();
  });

  const call = (replica: number, method: string, path: string, body?: unknown) =>
    as(replicas[replica]!.url, org, method, path, { body });
  const sessionOf = async (id: string) => {
    const res = await as(session.url, org, 'GET', `/sessions/${id}?messagesLimit=500`);
    return res.status === 200 ? res.body : undefined;
  };

  it('ends each idle session exactly once while two replicas sweep', async () => {
    const agent = (await call(0, 'POST', '/agents', rulesAgent('Idle pair', { idleTimeoutSeconds: 1 }))).body;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const started = await call(i % 2, 'POST', `/agents/${agent.id}/invoke`, {
        message: 'hello',
        channel: 'Web',
      });
      expect(started.status).toBe(200);
      // The next turn goes to the other replica: they share the session's record.
      const next = await call((i + 1) % 2, 'POST', `/agents/${agent.id}/invoke`, {
        message: 'echo',
        sessionId: started.body.sessionId,
      });
      expect(next.body.turn).toBe(2);
      ids.push(started.body.sessionId);
    }
    for (const id of ids) {
      const done = await eventually(15_000, async () => {
        const s = await sessionOf(id);
        return s?.status === 'Completed' ? s : undefined;
      });
      expect(done.endReason).toBe('idle timeout');
      expect(done.messageCount).toBe(4);
      expect(done.systemEvents.filter((e: any) => e.type === 'disconnection')).toHaveLength(1);
    }
  });

  it('keeps the conversation through a NATS outage and publishes it in order afterwards', async () => {
    const agent = (await call(0, 'POST', '/agents', rulesAgent('Outage'))).body;
    const first = await call(0, 'POST', `/agents/${agent.id}/invoke`, { message: 'hello', channel: 'Web' });
    const sessionId = first.body.sessionId;
    await eventually(10_000, async () => (await sessionOf(sessionId))?.messageCount === 2);
    await infra.nats.stop();
    try {
      const during = await call(0, 'POST', `/agents/${agent.id}/invoke`, {
        message: 'echo during the outage',
        sessionId,
      });
      expect(during.status).toBe(200);
      expect(during.body.messages.map((m: any) => m.position)).toEqual([3, 4]);
      const queued = await db.collection('conversations').findOne({ _id: sessionId as never });
      expect(queued!.pending.length).toBeGreaterThan(0);
    } finally {
      await infra.nats.start();
    }
    const after = await eventually(20_000, async () => {
      const res = await call(1, 'POST', `/agents/${agent.id}/invoke`, { message: 'hello after', sessionId });
      return res.status === 200 ? res : undefined;
    });
    expect(after.body.messages.map((m: any) => m.position)).toEqual([5, 6]);
    const s = await eventually(20_000, async () => {
      const current = await sessionOf(sessionId);
      return current?.messageCount === 6 ? current : undefined;
    });
    expect(s.messages.map((m: any) => `${m.position}:${m.content}`)).toEqual([
      '1:hello',
      '2:Hello! I am Outage. (turn 1)',
      '3:echo during the outage',
      '4:You said: echo during the outage',
      '5:hello after',
      '6:Hello! I am Outage. (turn 3)',
    ]);
    const record = await db.collection('conversations').findOne({ _id: sessionId as never });
    expect(record!.pending).toEqual([]);
  });

  it('stores a command published twice once', async () => {
    const agent = (await call(0, 'POST', '/agents', rulesAgent('Twice'))).body;
    const first = await call(0, 'POST', `/agents/${agent.id}/invoke`, { message: 'hello', channel: 'Web' });
    const sessionId = first.body.sessionId;
    await eventually(10_000, async () => (await sessionOf(sessionId))?.messageCount === 2);
    // As if a process published these, then died before taking them off its queue: the relay sends them again.
    const agentMessage = {
      id: `${sessionId}:m:2`,
      kind: 'message',
      payload: JSON.stringify({
        id: `${sessionId}:m:2`,
        orgId: org,
        sessionId,
        position: 2,
        sender: 'agent',
        content: 'Hello! I am Twice. (turn 1)',
        timestamp: first.body.messages[1].timestamp,
      }),
      at: new Date(Date.now() - 60_000),
    };
    await db
      .collection('conversations')
      .updateOne(
        { _id: sessionId as never },
        { $push: { pending: agentMessage as never }, $set: { pendingSince: new Date(Date.now() - 60_000) } },
      );
    await eventually(10_000, async () => {
      const record = await db.collection('conversations').findOne({ _id: sessionId as never });
      return record!.pending.length === 0;
    });
    const next = await call(1, 'POST', `/agents/${agent.id}/invoke`, { message: 'echo', sessionId });
    expect(next.body.messages.map((m: any) => m.position)).toEqual([3, 4]);
    const s = await eventually(10_000, async () => {
      const current = await sessionOf(sessionId);
      return current?.messageCount === 4 ? current : undefined;
    });
    expect(s.messages.map((m: any) => m.position)).toEqual([1, 2, 3, 4]);
  });

  it('frees a session whose turn died with its process once the lock expires', async () => {
    const agent = (await call(0, 'POST', '/agents', rulesAgent('Orphan'))).body;
    const first = await call(0, 'POST', `/agents/${agent.id}/invoke`, { message: 'hello', channel: 'Web' });
    const sessionId = first.body.sessionId;
    const locks = db.collection('locks');
    // A holder that died a moment ago: its lock is still valid, so the session is busy.
    await locks.insertOne({
      _id: `session:${sessionId}` as never,
      owner: 'dead',
      expiresAt: new Date(Date.now() + 60_000),
      createdAt: new Date(),
    });
    const busy = await call(1, 'POST', `/agents/${agent.id}/invoke`, { message: 'echo', sessionId });
    expect(busy.status).toBe(409);
    expect(
      (await call(1, 'POST', `/agents/${agent.id}/sessions/${sessionId}/end`, { status: 'completed' }))
        .status,
    ).toBe(409);
    // Once its lock expired, the next turn takes the session over.
    await locks.updateOne(
      { _id: `session:${sessionId}` as never },
      { $set: { expiresAt: new Date(Date.now() - 1_000) } },
    );
    const next = await call(1, 'POST', `/agents/${agent.id}/invoke`, { message: 'echo', sessionId });
    expect(next.status).toBe(200);
    expect(next.body.messages.map((m: any) => m.position)).toEqual([3, 4]);
    expect(await locks.countDocuments({ _id: `session:${sessionId}` as never })).toBe(0);
  });
});
