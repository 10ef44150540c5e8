import mongoose from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionRpc } from '@platform/contracts';
import { rpcRequest } from '@platform/kit';
import {
  call,
  newOrg,
  publishEnd,
  publishStart,
  startSessionHarness,
  waitFor,
  type SessionHarness,
} from './helpers.ts';

/** GET /sessions/metrics: exact after creates and transitions, the 24-hour edge, per organization. */
describe('session metrics', () => {
  let h: SessionHarness;
  const org = newOrg();
  const other = newOrg();

  beforeAll(async () => {
    h = await startSessionHarness();
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const metrics = async (orgId = org) => (await call('GET', `${h.url}/metrics`, orgId)).body;
  const waitMetrics = (pred: (m: any) => boolean, orgId = org) =>
    waitFor(async () => {
      const m = await metrics(orgId);
      return pred(m) ? m : undefined;
    });

  it('is all zeros with no top channel before any session', async () => {
    const m = await metrics(newOrg());
    expect(m).toMatchObject({ totalSessions: 0, activeSessions: 0, recentSessions: 0, topChannel: null });
    expect(m.byStatus).toEqual({ Active: 0, Completed: 0, Failed: 0, Cancelled: 0 });
  });

  it('counts creates and transitions exactly, and names the top channel', async () => {
    const channels = ['Web', 'Web', 'Web', 'Phone', 'Phone', 'WhatsApp'] as const;
    const starts = await Promise.all(channels.map((channel) => publishStart(h.js, { orgId: org, channel })));
    // A redelivered start adds nothing.
    await publishStart(h.js, { orgId: org, sessionId: starts[0]!.sessionId, channel: 'Web' });
    let m = await waitMetrics((x) => x.totalSessions === 6);
    expect(m).toMatchObject({
      totalSessions: 6,
      activeSessions: 6,
      recentSessions: 6,
      topChannel: { channel: 'Web', count: 3 },
    });
    await publishEnd(h.js, { orgId: org, sessionId: starts[0]!.sessionId, status: 'Completed' });
    await publishEnd(h.js, { orgId: org, sessionId: starts[3]!.sessionId, status: 'Failed' });
    await call('POST', `${h.url}/${starts[5]!.sessionId}/end`, org, { body: { status: 'Cancelled' } });
    // Redelivered and refused ends change nothing.
    await publishEnd(h.js, { orgId: org, sessionId: starts[0]!.sessionId, status: 'Completed' });
    await publishEnd(h.js, { orgId: org, sessionId: starts[3]!.sessionId, status: 'Cancelled' });
    m = await waitMetrics((x) => x.activeSessions === 3);
    await new Promise((r) => setTimeout(r, 1000));
    m = await metrics();
    expect(m).toMatchObject({ totalSessions: 6, activeSessions: 3, recentSessions: 6 });
    expect(m.byStatus).toEqual({ Active: 3, Completed: 1, Failed: 1, Cancelled: 1 });
    expect(m.byChannel.slice(0, 3)).toEqual([
      { channel: 'Web', count: 3 },
      { channel: 'Phone', count: 2 },
      { channel: 'WhatsApp', count: 1 },
    ]);
    const list = await call('GET', `${h.url}?pageSize=1`, org);
    expect(list.body.total).toBe(m.totalSessions);
    const active = await call('GET', `${h.url}?status=Active&pageSize=1`, org);
    expect(active.body.total).toBe(m.activeSessions);
    expect(await rpcRequest(h.nc, sessionRpc.metrics, { orgId: org })).toMatchObject({ totalSessions: 6 });
  });

  it('counts Recent Sessions to the second at the 24-hour edge', async () => {
    const edgeOrg = newOrg();
    const day = 86_400_000;
    const t = Date.now();
    const inside = [t - day + 30_000, t - day + 90_000, t - 3_600_000, t - 60_000];
    const outside = [t - day - 30_000, t - day - 3_600_000, t - 3 * day];
    await Promise.all(
      [...inside, ...outside].map((ms) =>
        publishStart(h.js, { orgId: edgeOrg, startTime: new Date(ms), channel: 'SIP' }),
      ),
    );
    // The total and the hour/day counts are separate documents updated concurrently: wait for both.
    const m = await waitMetrics((x) => x.totalSessions === 7 && x.recentSessions >= inside.length, edgeOrg);
    expect(m.recentSessions).toBe(inside.length);
    expect(m.totalSessions).toBe(7);
    expect(m.topChannel).toEqual({ channel: 'SIP', count: 7 });
  });

  it('rebuilds counters that a crash left behind with svc.session.recount', async () => {
    const before = await metrics();
    const db = await mongoose.createConnection(h.infra.mongo.url, { dbName: 'session' }).asPromise();
    try {
      // What a crash between a claim and its increment would leave: one increment missing.
      await db
        .collection('session_counters')
        .updateOne({ _id: org as never }, { $inc: { total: -1, 'cs.Web.Active': -1 } });
      await db.collection('session_hourly').deleteMany({ orgId: org });
      await db.collection('session_daily').deleteMany({ orgId: org });
      expect((await metrics()).totalSessions).toBe(before.totalSessions - 1);
    } finally {
      await db.close();
    }
    const rebuilt = await rpcRequest(h.nc, sessionRpc.recount, { orgId: org }, { timeoutMs: 30_000 });
    expect({ ...rebuilt, generatedAt: '' }).toEqual({ ...before, generatedAt: '' });
  });

  it('keeps organizations apart', async () => {
    await publishStart(h.js, { orgId: other, channel: 'Telegram' });
    const m = await waitMetrics((x) => x.totalSessions === 1, other);
    expect(m.topChannel).toEqual({ channel: 'Telegram', count: 1 });
    expect((await metrics()).totalSessions).toBe(6);
  });
});
