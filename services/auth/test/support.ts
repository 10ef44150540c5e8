import { http, uniqueEmail } from '@platform/testing';

export const PASSWORD = 'correct horse battery';

export interface Account {
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
  orgId: string;
  userId: string;
}

/** Signs up a new organization through the gateway and returns its owner's tokens. */
export async function signup(gatewayUrl: string, organizationName = 'Acme'): Promise<Account> {
  const email = uniqueEmail();
  const res = await http('POST', `${gatewayUrl}/api/v1/auth/signup`, {
    body: { organizationName, email, password: PASSWORD },
  });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return {
    email,
    password: PASSWORD,
    accessToken: res.body.accessToken,
    refreshToken: res.body.refreshToken,
    orgId: res.body.organization.id,
    userId: res.body.user.id,
  };
}

export async function login(gatewayUrl: string, email: string, password = PASSWORD) {
  return http('POST', `${gatewayUrl}/api/v1/auth/login`, { body: { email, password } });
}

/** Adds a member with a password and logs them in; returns their access token and member id. */
export async function addMember(gatewayUrl: string, managerToken: string, role: string) {
  const email = uniqueEmail(role);
  const created = await http('POST', `${gatewayUrl}/api/v1/members`, {
    token: managerToken,
    body: { email, role, password: PASSWORD },
  });
  if (created.status !== 201) throw new Error(`member creation failed: ${created.status} ${created.text}`);
  const res = await login(gatewayUrl, email);
  return { id: created.body.id as string, email, token: res.body.accessToken as string };
}

/** Polls until `check` resolves true, or fails after `timeoutMs`. Returns the time it took. */
export async function within(timeoutMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
