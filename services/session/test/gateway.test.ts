import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { http, startStack, uniqueEmail, type TestStack } from '@platform/testing';
import { publishStart, waitFor } from './helpers.ts';

/** Client → gateway (bearer token) → session service, at /api/v1/sessions and the spec's /sessions paths. */
describe('sessions through the gateway', () => {
  let stack: TestStack;
  let nc: NatsConnection;
  const orgs: { id: string; token: string }[] = [];

  beforeAll(async () => {
    stack = await startStack(['auth', 'session']);
    nc = await connect({ servers: stack.nats.url });
    for (const name of ['Acme', 'Globex']) {
      const signup = await http('POST', `${stack.url}/api/v1/auth/signup`, {
        body: { organizationName: name, email: uniqueEmail(), password: 'correct horse battery' },
      });
      expect(signup.status).toBe(201);
      orgs.push({ id: signup.body.organization.id, token: signup.body.accessToken });
    }
  });
  afterAll(async () => {
    await nc?.close();
    await stack?.dispose();
  });

  it('serves the list, metrics, detail and export to the right organization only', async () => {
    const [acme, globex] = orgs as [{ id: string; token: string }, { id: string; token: string }];
    const start = await publishStart(jetstream(nc), { orgId: acme.id, agentName: 'Gateway Bot' });
    const list = await waitFor(async () => {
      const r = await http('GET', `${stack.url}/sessions`, { token: acme.token });
      return r.body?.total === 1 ? r : undefined;
    });
    expect(list.body.items[0]).toMatchObject({
      id: start.sessionId,
      agentName: 'Gateway Bot',
      status: 'Active',
    });
    const metrics = await http('GET', `${stack.url}/sessions/metrics`, { token: acme.token });
    expect(metrics.body).toMatchObject({
      totalSessions: 1,
      activeSessions: 1,
      topChannel: { channel: 'Web', count: 1 },
    });
    const detail = await http('GET', `${stack.url}/sessions/${start.sessionId}`, { token: acme.token });
    expect(detail.body.id).toBe(start.sessionId);
    const csv = await http('GET', `${stack.url}/api/v1/sessions/export?format=csv`, { token: acme.token });
    expect(csv.status).toBe(200);
    expect(csv.text).toContain(start.sessionId);

    expect(
      (await http('GET', `${stack.url}/sessions/${start.sessionId}`, { token: globex.token })).status,
    ).toBe(404);
    expect((await http('GET', `${stack.url}/api/v1/sessions`, { token: globex.token })).body.total).toBe(0);
    expect((await http('GET', `${stack.url}/sessions`)).status).toBe(401);
    expect((await http('GET', `${stack.url}/sessions?status[$ne]=x`, { token: acme.token })).status).toBe(
      400,
    );
  });
});
