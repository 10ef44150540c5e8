import { randomUUID } from 'node:crypto';
import {
  http,
  internalHeaders,
  startInfra,
  startServiceProcess,
  uniqueEmail,
  type HttpResult,
  type ServiceProcess,
  type TestStack,
} from '@platform/testing';

/** A fresh organization id (tests call services directly as an organization through internal headers). */
export const newOrg = () => `org_${randomUUID().slice(0, 8)}`;

export type Role = 'owner' | 'admin' | 'developer' | 'viewer';

/** Calls a service directly, as if through the gateway, as `orgId` with `role`. */
export async function as(
  baseUrl: string,
  orgId: string,
  method: string,
  path: string,
  options: { body?: unknown; role?: Role; headers?: Record<string, string> } = {},
): Promise<HttpResult<any>> {
  const headers = {
    ...(await internalHeaders({ orgId, role: options.role ?? 'owner' })),
    ...options.headers,
  };
  return http(method, `${baseUrl}/api/v1${path}`, { body: options.body, headers });
}

export interface SseEvent {
  event: string;
  data: any;
}

/** Reads a whole text/event-stream answer into its events (comments and keep-alives skipped). */
export async function readEvents(res: Response): Promise<SseEvent[]> {
  const text = await res.text();
  const events: SseEvent[] = [];
  for (const block of text.split('\n\n')) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return events;
}

/** POSTs an invoke that streams; returns the response (status, headers) and its events. */
export async function invokeStream(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; contentType: string; events: SseEvent[]; body?: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const contentType = res.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream')) {
    return { status: res.status, contentType, events: [], body: await res.json() };
  }
  return { status: res.status, contentType, events: await readEvents(res) };
}

/** Polls until `check` returns a value (not undefined/false), or fails after `timeoutMs`. */
export async function eventually<T>(
  timeoutMs: number,
  check: () => Promise<T | undefined | false>,
): Promise<T> {
  const started = Date.now();
  let last: unknown;
  while (Date.now() - started < timeoutMs) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ''}`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Signs up a new organization through the gateway; returns its owner's token and organization id. */
export async function signup(gatewayUrl: string, organizationName = 'Acme') {
  const res = await http('POST', `${gatewayUrl}/api/v1/auth/signup`, {
    body: { organizationName, email: uniqueEmail(), password: 'correct horse battery' },
  });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return { token: res.body.accessToken as string, orgId: res.body.organization.id as string };
}

/** A local-provider agent that answers by rules (see docs/agents.md). */
export function rulesAgent(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    systemPrompt: 'You are a helpful test agent.',
    provider: {
      kind: 'local',
      rules: [
        {
          name: 'hello',
          match: { any: ['hello', 'hi there'] },
          reply: 'Hello! I am {{agentName}}. (turn {{turn}})',
        },
        {
          name: 'bye',
          match: { any: ['bye'] },
          tool: { name: 'end_session', arguments: { reason: 'user said {{message}}' } },
          reply: 'Goodbye!',
        },
        { name: 'broken', match: { any: ['break'] }, error: 'the model is down' },
        { name: 'echo', match: { any: ['echo'] }, reply: 'You said: {{message}}' },
      ],
      fallback: 'Sorry, I do not know about "{{message}}".',
    },
    tools: [{ type: 'end_session' }],
    ...extra,
  };
}

/**
 * startStack for many services on a busy machine: the services start two at a time with a longer
 * readiness deadline (six node processes compiling at once on two cores can take more than 30 s).
 */
export async function startPlatform(
  names: string[],
  serviceEnv: Record<string, Record<string, string>> = {},
): Promise<TestStack> {
  const infra = await startInfra();
  const services: Record<string, ServiceProcess> = {};
  const stopAll = () => Promise.all(Object.values(services).map((s) => s.stop()));
  try {
    for (let i = 0; i < names.length; i += 2) {
      await Promise.all(
        names.slice(i, i + 2).map(async (name) => {
          services[name] = await startServiceProcess(
            name,
            { ...infra.env, SIGNUP_ENABLED: 'true', PASSWORD_SCRYPT_N: '1024', ...serviceEnv[name] },
            { readyTimeoutMs: 90_000 },
          );
        }),
      );
    }
    const urls = Object.fromEntries(
      Object.values(services).map((s) => [`${s.name.toUpperCase()}_URL`, s.url]),
    );
    const gateway = await startServiceProcess(
      'gateway',
      { ...infra.env, ...urls, ...serviceEnv.gateway },
      { readyTimeoutMs: 90_000 },
    );
    return {
      ...infra,
      services,
      gateway,
      url: gateway.url,
      dispose: async () => {
        await Promise.all([gateway.stop(), stopAll()]);
        await infra.dispose();
      },
    };
  } catch (err) {
    await stopAll();
    await infra.dispose();
    throw err;
  }
}
