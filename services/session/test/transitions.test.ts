import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  newOrg,
  publishEnd,
  publishMessage,
  publishStart,
  startSessionHarness,
  waitFor,
  type SessionHarness,
} from './helpers.ts';

/** Session detail, ending a session over HTTP (allowed and refused transitions, roles), tenant isolation. */
describe('session detail and transitions', () => {
  let h: SessionHarness;
  const org = newOrg();
  const other = newOrg();

  beforeAll(async () => {
    h = await startSessionHarness();
  });
  afterAll(async () => {
    await h?.dispose();
  });

  async function started(orgId = org) {
    const cmd = await publishStart(h.js, { orgId, metadata: { order: 'A-1' } });
    await waitFor(async () => (await call('GET', `${h.url}/${cmd.sessionId}`, orgId)).status === 200);
    return cmd.sessionId;
  }

  it('ends an Active session as Completed, Failed or Cancelled, once', async () => {
    for (const status of ['Completed', 'Failed', 'Cancelled'] as const) {
      const id = await started();
      const res = await call('POST', `${h.url}/${id}/end`, org, { body: { status, reason: 'operator' } });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ id, status, endReason: 'operator' });
      expect(typeof res.body.duration).toBe('number');
      expect(res.body.durationDisplay).toMatch(/ min$/);
      expect(res.body.endTime).toBeTruthy();
      const detail = await call('GET', `${h.url}/${id}`, org);
      expect(detail.body.status).toBe(status);
      expect(detail.body.systemEvents.map((e: any) => e.details.to)).toEqual(['Active', status]);
    }
  });

  it('refuses every transition that does not start from Active', async () => {
    const id = await started();
    expect((await call('POST', `${h.url}/${id}/end`, org, { body: { status: 'Completed' } })).status).toBe(
      200,
    );
    for (const status of ['Completed', 'Failed', 'Cancelled']) {
      const res = await call('POST', `${h.url}/${id}/end`, org, { body: { status } });
      expect(res.status).toBe(409);
      expect(res.body.detail).toContain('Completed');
    }
    const back = await call('POST', `${h.url}/${id}/end`, org, { body: { status: 'Active' } });
    expect(back.status).toBe(400);
    expect(back.body.errors[0].field).toBe('status');
    // An end command arriving later over ingest changes nothing either.
    await publishEnd(h.js, { orgId: org, sessionId: id, status: 'Failed' });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await call('GET', `${h.url}/${id}`, org)).body.status).toBe('Completed');
  });

  it('lets viewers read but not end a session; developers and admins may', async () => {
    const id = await started();
    expect((await call('GET', `${h.url}/${id}`, org, { role: 'viewer' })).status).toBe(200);
    const denied = await call('POST', `${h.url}/${id}/end`, org, {
      role: 'viewer',
      body: { status: 'Cancelled' },
    });
    expect(denied.status).toBe(403);
    expect((await call('GET', `${h.url}/${id}`, org)).body.status).toBe('Active');
    const ok = await call('POST', `${h.url}/${id}/end`, org, {
      role: 'developer',
      body: { status: 'Cancelled' },
    });
    expect(ok.status).toBe(200);
  });

  it('answers the reads at the specification paths /sessions, /sessions/metrics and /sessions/{id} too', async () => {
    const id = await started();
    const root = h.service.url;
    const list = await call('GET', `${root}/sessions?search=${id}`, org);
    expect(list.body.items.map((s: any) => s.id)).toEqual([id]);
    expect((await call('GET', `${root}/sessions/metrics`, org)).body.totalSessions).toBeGreaterThan(0);
    expect((await call('GET', `${root}/sessions/${id}`, org)).body.id).toBe(id);
    expect((await call('GET', `${root}/sessions/${id}`, other)).status).toBe(404);
  });

  it('answers 404 for unknown and malformed ids, and 400 for bad paging', async () => {
    expect((await call('GET', `${h.url}/${randomUUID()}`, org)).status).toBe(404);
    expect((await call('GET', `${h.url}/not-a-session`, org)).status).toBe(404);
    expect(
      (await call('POST', `${h.url}/${randomUUID()}/end`, org, { body: { status: 'Failed' } })).status,
    ).toBe(404);
    const id = await started();
    expect((await call('GET', `${h.url}/${id}?messagesLimit=501`, org)).status).toBe(400);
    expect((await call('GET', `${h.url}/${id}/messages?after=-1`, org)).status).toBe(400);
    expect((await call('GET', `${h.url}/${id}/events?cursor=zzz`, org)).status).toBe(400);
    expect((await call('GET', `${h.url}/${id}?include[$ne]=1`, org)).status).toBe(400);
  });

  it("keeps every session route to the caller's organization", async () => {
    const id = await started(org);
    await publishMessage(h.js, { orgId: org, sessionId: id, position: 1, sender: 'user', content: 'secret' });
    await waitFor(async () => (await call('GET', `${h.url}/${id}`, org)).body?.messages?.length === 1);
    expect((await call('GET', `${h.url}/${id}`, other)).status).toBe(404);
    expect((await call('GET', `${h.url}/${id}/messages`, other)).status).toBe(404);
    expect((await call('GET', `${h.url}/${id}/events`, other)).status).toBe(404);
    const end = await call('POST', `${h.url}/${id}/end`, other, { body: { status: 'Failed' } });
    expect(end.status).toBe(404);
    expect((await call('GET', `${h.url}/${id}`, org)).body.status).toBe('Active');
    // Ingest commands are scoped the same way: another organization's end cannot touch it.
    await publishEnd(h.js, { orgId: other, sessionId: id, status: 'Failed' });
    await new Promise((r) => setTimeout(r, 500));
    expect((await call('GET', `${h.url}/${id}`, org)).body.status).toBe('Active');
    const list = await call('GET', `${h.url}?search=${id}`, other);
    expect(list.body.total).toBe(0);
  });
});
