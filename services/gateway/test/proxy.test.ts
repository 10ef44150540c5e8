import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authRpc } from '@platform/contracts';
import { rpcRequest } from '@platform/kit';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  freePort,
  http,
  startServiceProcess,
  startStack,
  uniqueEmail,
  type ServiceProcess,
  type TestStack,
} from '@platform/testing';

/**
 * The skeleton end to end: client → gateway process → auth process → FerretDB and back, a NATS
 * request/reply between two processes, and the gateway's answers when an upstream is down or slow.
 */
describe('gateway skeleton', () => {
  let stack: TestStack;
  let slow: Server;
  let gateway: ServiceProcess;
  let nc: NatsConnection;
  let token: string;

  beforeAll(async () => {
    stack = await startStack(['auth'], { gateway: false });
    // A "workflow service" that never answers, and an "execution service" where nothing listens.
    slow = createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((r) => slow.once('listening', r));
    gateway = await startServiceProcess('gateway', {
      ...stack.env,
      AUTH_URL: stack.services.auth!.url,
      WORKFLOW_URL: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
      EXECUTION_URL: `http://127.0.0.1:${await freePort()}`,
      UPSTREAM_TIMEOUT_MS: '500',
      BODY_LIMIT: '10kb',
    });
    nc = await connect({ servers: stack.nats.url });
  });

  afterAll(async () => {
    await nc?.close();
    slow?.closeAllConnections();
    slow?.close();
    await gateway?.stop();
    await stack?.dispose();
  });

  it('carries a real route through the gateway to the service and MongoDB', async () => {
    const email = uniqueEmail();
    const signup = await http('POST', `${gateway.url}/api/v1/auth/signup`, {
      body: { organizationName: 'Acme', email, password: 'correct horse battery' },
    });
    expect(signup.status).toBe(201);
    expect(signup.body.organization).toMatchObject({ name: 'Acme', plan: 'pro' });
    expect(signup.headers.get('x-request-id')).toBeTruthy();
    const login = await http('POST', `${gateway.url}/api/v1/auth/login`, {
      body: { email, password: 'correct horse battery' },
    });
    expect(login.status).toBe(200);
    expect(login.body.tokenType).toBe('Bearer');
    expect(login.body.organization.id).toBe(signup.body.organization.id);
    token = login.body.accessToken;

    // NATS request/reply from this process to the auth process.
    const org = await rpcRequest(nc, authRpc.getOrganization, { orgId: signup.body.organization.id });
    expect(org).toMatchObject({ name: 'Acme', plan: 'pro' });
    await expect(rpcRequest(nc, authRpc.getOrganization, { orgId: 'org_missing' })).rejects.toMatchObject({
      status: 404,
    });
  });

  it('answers problem+json 4xx for bad input at the gateway and the service', async () => {
    const malformed = await http('POST', `${gateway.url}/api/v1/auth/login`, {
      rawBody: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toContain('application/problem+json');
    const wrongType = await http('POST', `${gateway.url}/api/v1/auth/login`, {
      rawBody: 'a=b',
      headers: { 'content-type': 'text/plain' },
    });
    expect(wrongType.status).toBe(415);
    const big = await http('POST', `${gateway.url}/api/v1/auth/login`, {
      body: { email: 'a@b.c', password: 'x'.repeat(20_000) },
    });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toContain('application/problem+json');
    const invalid = await http('POST', `${gateway.url}/api/v1/auth/signup`, {
      body: { email: 'not-an-email' },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'email',
      'organizationName',
      'password',
    ]);
  });

  it('answers 404 for unknown routes, 503 for a down upstream and 504 for a slow one', async () => {
    const unknown = await http('GET', `${gateway.url}/api/v1/nothing-here`, { token });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
    const down = await http('GET', `${gateway.url}/api/v1/executions`, { token });
    expect(down.status).toBe(503);
    expect(down.body.title).toBe('Service unavailable');
    const slowRes = await http('GET', `${gateway.url}/api/v1/workflows`, { token });
    expect(slowRes.status).toBe(504);
    expect(slowRes.headers.get('content-type')).toContain('application/problem+json');
  });

  it('serves the OpenAPI document and a docs page', async () => {
    const doc = await http('GET', `${gateway.url}/api/v1/openapi.json`);
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\.0/);
    expect(doc.body.paths['/api/v1/auth/login'].post).toBeDefined();
    const page = await http('GET', `${gateway.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('/api/v1/auth/login');
  });

  it('aggregates readiness: 503 while a routed service is down', async () => {
    const res = await http('GET', `${gateway.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.body.checks.auth.ok).toBe(true);
    expect(res.body.checks.execution.ok).toBe(false);
    expect(res.body.checks.nats.ok).toBe(true);
  });

  it('is ready when every routed service is', async () => {
    const only = await startServiceProcess('gateway', { ...stack.env, AUTH_URL: stack.services.auth!.url });
    try {
      const res = await http('GET', `${only.url}/readyz`);
      expect(res.status).toBe(200);
    } finally {
      await only.stop();
    }
  });
});
