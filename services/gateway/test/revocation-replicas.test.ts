import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  http,
  startServiceProcess,
  startStack,
  type ServiceProcess,
  type TestStack,
} from '@platform/testing';
import { addMember, signup, within } from '../../auth/test/support.ts';

/**
 * Revocation across gateway processes that share only NATS: what is revoked through gateway A is
 * refused by gateway B within 5 s, and a gateway C started afterwards refuses it from its first
 * request.
 */
describe('revocation at every gateway replica', () => {
  let stack: TestStack;
  let b: ServiceProcess;
  const gatewayEnv = () => ({ ...stack.env, AUTH_URL: stack.services.auth!.url });

  beforeAll(async () => {
    stack = await startStack(['auth']);
    b = await startServiceProcess('gateway', gatewayEnv());
  });
  afterAll(async () => {
    await b?.stop();
    await stack?.dispose();
  });

  const me = (base: string, token: string) => http('GET', `${base}/api/v1/auth/me`, { token });

  it('a logout at gateway A is enforced at gateway B within 5 s, and at a gateway started later', async () => {
    const account = await signup(stack.url);
    expect((await me(b.url, account.accessToken)).status).toBe(200); // B has verified and cached it
    expect(
      (await http('POST', `${stack.url}/api/v1/auth/logout`, { token: account.accessToken })).status,
    ).toBe(204);
    const took = await within(5_000, async () => (await me(b.url, account.accessToken)).status === 401);
    process.stdout.write(`logout reached gateway B after ≤ ${took} ms\n`);
    const c = await startServiceProcess('gateway', gatewayEnv());
    try {
      expect((await me(c.url, account.accessToken)).status).toBe(401);
    } finally {
      await c.stop();
    }
  });

  it('a deleted API key is refused at gateway B within 5 s, and by a gateway started later', async () => {
    const owner = await signup(stack.url);
    const created = await http('POST', `${stack.url}/api/v1/api-keys`, {
      token: owner.accessToken,
      body: { name: 'k' },
    });
    const secret = created.body.secret as string;
    expect((await me(b.url, secret)).status).toBe(200); // cached at B
    expect(
      (
        await http('DELETE', `${stack.url}/api/v1/api-keys/${created.body.apiKey.id}`, {
          token: owner.accessToken,
        })
      ).status,
    ).toBe(204);
    const took = await within(5_000, async () => (await me(b.url, secret)).status === 401);
    process.stdout.write(`key deletion reached gateway B after ≤ ${took} ms\n`);
    const c = await startServiceProcess('gateway', gatewayEnv());
    try {
      expect((await me(c.url, secret)).status).toBe(401);
    } finally {
      await c.stop();
    }
  });

  it('the end of a rotation grace period holds at gateway B', async () => {
    const owner = await signup(stack.url);
    const created = await http('POST', `${stack.url}/api/v1/api-keys`, {
      token: owner.accessToken,
      body: { name: 'k' },
    });
    const old = created.body.secret as string;
    expect((await me(b.url, old)).status).toBe(200);
    const rotated = await http('POST', `${stack.url}/api/v1/api-keys/${created.body.apiKey.id}/rotate`, {
      token: owner.accessToken,
      body: { gracePeriodSeconds: 2 },
    });
    expect((await me(b.url, rotated.body.secret)).status).toBe(200);
    expect((await me(b.url, old)).status).toBe(200);
    await within(2_000 + 5_000, async () => (await me(b.url, old)).status === 401);
    expect((await me(b.url, rotated.body.secret)).status).toBe(200);
  });

  it('a removed member and a reused refresh token are enforced at gateway B', async () => {
    const owner = await signup(stack.url);
    const m = await addMember(stack.url, owner.accessToken, 'developer');
    expect((await me(b.url, m.token)).status).toBe(200);
    await http('DELETE', `${stack.url}/api/v1/members/${m.id}`, { token: owner.accessToken });
    await within(5_000, async () => (await me(b.url, m.token)).status === 401);

    const rotated = await http('POST', `${stack.url}/api/v1/auth/refresh`, {
      body: { refreshToken: owner.refreshToken },
    });
    expect((await me(b.url, rotated.body.accessToken)).status).toBe(200);
    await http('POST', `${stack.url}/api/v1/auth/refresh`, { body: { refreshToken: owner.refreshToken } });
    await within(5_000, async () => (await me(b.url, rotated.body.accessToken)).status === 401);
  });
});
