import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startStack, TEST_KEY_RING, uniqueEmail, type TestStack } from '@platform/testing';

/** The whole path: a user's access token → gateway → integration service. */
describe('integrations through the gateway', () => {
  let stack: TestStack;
  let token: string;
  beforeAll(async () => {
    stack = await startStack(['auth', 'integration'], {
      serviceEnv: { integration: { CREDENTIALS_KEYS: TEST_KEY_RING, ALLOW_PRIVATE_NETWORK: 'true' } },
    });
    const signup = await http('POST', `${stack.url}/api/v1/auth/signup`, {
      body: { organizationName: 'Acme', email: uniqueEmail(), password: 'correct horse battery' },
    });
    expect(signup.status).toBe(201);
    token = signup.body.accessToken;
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  it('lists the catalog, creates and lists a connection with a real access token', async () => {
    const catalog = await http('GET', `${stack.url}/api/v1/integrations?category=ai`, { token });
    expect(catalog.status).toBe(200);
    expect(catalog.body.items.map((i: any) => i.id)).toEqual(['openai']);
    const created = await http('POST', `${stack.url}/api/v1/connections`, {
      token,
      body: { integrationId: 'webhook', name: 'Hook', credentials: { url: 'https://hooks.example.test/in' } },
    });
    expect(created.status).toBe(201);
    const list = await http('GET', `${stack.url}/api/v1/connections`, { token });
    expect(list.body).toMatchObject({ total: 1, items: [{ id: created.body.id, name: 'Hook' }] });
    expect(list.text).not.toContain('hooks.example.test');
    const anonymous = await http('GET', `${stack.url}/api/v1/connections`);
    expect(anonymous.status).toBe(401);
  });
});
