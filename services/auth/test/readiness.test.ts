import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  http,
  startServiceProcess,
  startInfra,
  uniqueEmail,
  type ServiceProcess,
  type TestInfra,
} from '@platform/testing';

async function waitForStatus(url: string, status: number, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = (await http('GET', url)).status;
    if (last === status) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} answered ${last}, expected ${status}`);
}

/** A service whose MongoDB or NATS goes away answers 503 and recovers by itself when it is back. */
describe('readiness and recovery', () => {
  let infra: TestInfra;
  let auth: ServiceProcess;

  beforeAll(async () => {
    infra = await startInfra();
    auth = await startServiceProcess('auth', {
      ...infra.env,
      SIGNUP_ENABLED: 'true',
      PASSWORD_SCRYPT_N: '1024',
    });
  });
  afterAll(async () => {
    await auth?.stop();
    await infra?.dispose();
  });

  it('is alive and ready with both dependencies up', async () => {
    expect((await http('GET', `${auth.url}/healthz`)).status).toBe(200);
    const ready = await http('GET', `${auth.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ nats: { ok: true }, mongodb: { ok: true } });
  });

  it('answers 503 while MongoDB is down, for readiness and for requests, then recovers', async () => {
    await infra.mongo.stop();
    await waitForStatus(`${auth.url}/readyz`, 503);
    const during = await http('POST', `${auth.url}/api/v1/auth/login`, {
      body: { email: uniqueEmail(), password: 'whatever-it-is' },
    });
    expect(during.status).toBe(503);
    expect(during.headers.get('content-type')).toContain('application/problem+json');
    await infra.mongo.start();
    await waitForStatus(`${auth.url}/readyz`, 200);
    const after = await http('POST', `${auth.url}/api/v1/auth/signup`, {
      body: { organizationName: 'Back', email: uniqueEmail(), password: 'correct horse battery' },
    });
    expect(after.status).toBe(201);
  });

  it('answers 503 while NATS is down, then recovers', async () => {
    await infra.nats.stop();
    await waitForStatus(`${auth.url}/readyz`, 503);
    expect((await http('GET', `${auth.url}/readyz`)).body.checks.nats.ok).toBe(false);
    await infra.nats.start();
    await waitForStatus(`${auth.url}/readyz`, 200);
  });

  it('stops gracefully on SIGTERM', async () => {
    const other = await startServiceProcess('auth', { ...infra.env, PASSWORD_SCRYPT_N: '1024' });
    other.process.child.kill('SIGTERM');
    expect(await other.process.exited).toBe(0);
    await other.stop();
  });

  it('refuses to start on a bad config, naming the variable', async () => {
    await expect(
      startServiceProcess('auth', { ...infra.env, SIGNUP_ENABLED: 'maybe' }, { readyTimeoutMs: 10_000 }),
    ).rejects.toThrow(/exited with code 1[\s\S]*SIGNUP_ENABLED/);
  });
});
