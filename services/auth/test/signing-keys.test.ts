import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtectedHeader } from 'jose';
import {
  http,
  startInfra,
  startServiceProcess,
  type ServiceProcess,
  type TestInfra,
} from '@platform/testing';
import { login, signup, sleep } from './support.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const ADMIN = { email: 'root@example.test', password: 'bootstrap-password-123' };

/** Bootstrap administrator (idempotent across replicas) and signing-key rotation without logouts. */
describe('bootstrap and signing-key rotation', () => {
  let infra: TestInfra;
  let auths: ServiceProcess[];
  let gateway: ServiceProcess;

  beforeAll(async () => {
    infra = await startInfra();
    const env = {
      ...infra.env,
      SIGNUP_ENABLED: 'true',
      PASSWORD_SCRYPT_N: '1024',
      SIGNING_KEY_CACHE_SECONDS: '1',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    };
    // Two replicas start at the same time on an empty database.
    auths = await Promise.all([startServiceProcess('auth', env), startServiceProcess('auth', env)]);
    gateway = await startServiceProcess('gateway', { ...infra.env, AUTH_URL: auths[0]!.url });
  });
  afterAll(async () => {
    await Promise.all([gateway?.stop(), ...(auths ?? []).map((a) => a.stop())]);
    await infra?.dispose();
  });

  const rotate = async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'services/auth/src/cli/rotate-signing-key.ts'],
      { cwd: repoRoot, env: { ...process.env, ...infra.env } },
    );
    return JSON.parse(stdout.trim()) as { activeKid: string; retiredKid: string };
  };
  const kidOf = (token: string) => decodeProtectedHeader(token).kid;

  it('creates the bootstrap owner once, even with replicas racing; signup is off by default', async () => {
    const res = await login(gateway.url, ADMIN.email, ADMIN.password);
    expect(res.status).toBe(200);
    expect(res.body.organization.plan).toBe('enterprise');
    const members = await http('GET', `${gateway.url}/api/v1/members`, { token: res.body.accessToken });
    expect(members.body.items.filter((m: { email: string }) => m.email === ADMIN.email)).toHaveLength(1);
    expect(members.body.items[0].role).toBe('owner');
    // A restart with the same settings changes nothing (and does not reset the password).
    const again = await startServiceProcess('auth', {
      ...infra.env,
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: 'another-password-456',
    });
    // Signup is off unless SIGNUP_ENABLED is set (production's default).
    const closed = await http('POST', `${again.url}/api/v1/auth/signup`, {
      body: { organizationName: 'Nope', email: 'nobody@example.test', password: 'correct horse battery' },
    });
    expect(closed.status).toBe(403);
    await again.stop();
    expect((await login(gateway.url, ADMIN.email, ADMIN.password)).status).toBe(200);
  });

  it('rotates the signing key without logging anybody out', async () => {
    const account = await signup(gateway.url);
    const oldKid = kidOf(account.accessToken);
    const { activeKid, retiredKid } = await rotate();
    expect(retiredKid).toBe(oldKid);
    expect(activeKid).not.toBe(oldKid);
    const jwks = await http('GET', `${gateway.url}/api/v1/.well-known/jwks.json`);
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toEqual(
      expect.arrayContaining([oldKid, activeKid]),
    );
    // The token signed with the retired key still works.
    expect((await http('GET', `${gateway.url}/api/v1/auth/me`, { token: account.accessToken })).status).toBe(
      200,
    );
    // Once replicas reload (SIGNING_KEY_CACHE_SECONDS=1) new tokens carry the new kid, and the
    // gateway, which has never seen it, fetches the keys again and accepts them.
    await sleep(1_200);
    const fresh = await login(gateway.url, account.email);
    expect(fresh.status, fresh.text).toBe(200);
    expect(kidOf(fresh.body.accessToken)).toBe(activeKid);
    expect(
      (await http('GET', `${gateway.url}/api/v1/auth/me`, { token: fresh.body.accessToken })).status,
    ).toBe(200);
    const refreshed = await http('POST', `${gateway.url}/api/v1/auth/refresh`, {
      body: { refreshToken: account.refreshToken },
    });
    expect(refreshed.status).toBe(200);
    expect(kidOf(refreshed.body.accessToken)).toBe(activeKid);
    // Both keys verify side by side.
    expect((await http('GET', `${gateway.url}/api/v1/auth/me`, { token: account.accessToken })).status).toBe(
      200,
    );
  });

  it('refuses to start with a bad config, naming the variable', async () => {
    await expect(
      startServiceProcess(
        'auth',
        { ...infra.env, BOOTSTRAP_ADMIN_PASSWORD: 'short' },
        { readyTimeoutMs: 10_000 },
      ),
    ).rejects.toThrow(/exited with code 1/);
  });
});
