import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import {
  http,
  internalHeaders,
  startInfra,
  startServiceProcess,
  type HttpResult,
  type ServiceProcess,
  type TestInfra,
} from '@platform/testing';

/** Env of the engine in tests: local addresses allowed, quick crash recovery and parking. */
export const engineEnv = {
  ALLOW_PRIVATE_NETWORK: 'true',
  EXECUTION_ACK_WAIT_MS: '4000',
  EXECUTION_PARK_SLICE_MS: '1000',
  SCHEDULER_INTERVAL_MS: '300',
  EVENT_TRIGGER_REFRESH_MS: '500',
};

export interface Engine {
  infra: TestInfra;
  workflow: ServiceProcess;
  execution: ServiceProcess;
  /** Extra service processes started by the test (stopped by dispose). */
  extra: ServiceProcess[];
  startExecution(env?: Record<string, string>): Promise<ServiceProcess>;
  startWorkflow(env?: Record<string, string>): Promise<ServiceProcess>;
  dispose(): Promise<void>;
}

export async function startEngine(env: Record<string, string> = {}): Promise<Engine> {
  const infra = await startInfra();
  const extra: ServiceProcess[] = [];
  const startExecution = async (more: Record<string, string> = {}) => {
    const p = await startServiceProcess('execution', { ...infra.env, ...engineEnv, ...env, ...more });
    extra.push(p);
    return p;
  };
  const startWorkflow = async (more: Record<string, string> = {}) => {
    const p = await startServiceProcess('workflow', { ...infra.env, ...engineEnv, ...env, ...more });
    extra.push(p);
    return p;
  };
  const [workflow, execution] = await Promise.all([startWorkflow(), startExecution()]);
  return {
    infra,
    workflow,
    execution,
    extra,
    startExecution,
    startWorkflow,
    dispose: async () => {
      await Promise.all(extra.map((p) => p.stop().catch(() => undefined)));
      await infra.dispose();
    },
  };
}

/** A caller of an organization with a role, talking to the services directly (as the gateway would). */
export function caller(orgId = `org_${randomUUID().slice(0, 8)}`, role = 'owner') {
  const headers = () => internalHeaders({ orgId, role: role as never });
  return {
    orgId,
    async call<T = any>(
      method: string,
      url: string,
      body?: unknown,
      extra: Record<string, string> = {},
    ): Promise<HttpResult<T>> {
      return http<T>(method, url, { body, headers: { ...(await headers()), ...extra } });
    },
  };
}
export type Caller = ReturnType<typeof caller>;

/** Polls until `check` returns a value (not undefined), or fails after the timeout. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

export async function waitForStatus(
  who: Caller,
  executionUrl: string,
  id: string,
  statuses: string[],
  timeoutMs = 30_000,
): Promise<any> {
  return waitFor(
    `execution ${id} to be ${statuses.join('|')}`,
    async () => {
      const res = await who.call('GET', `${executionUrl}/api/v1/executions/${id}`);
      return res.status === 200 && statuses.includes(res.body.status) ? res.body : undefined;
    },
    timeoutMs,
  );
}

/** A local HTTP server that counts hits per path and answers with a handler. */
export interface FakeServer {
  url: string;
  hits: Map<string, number>;
  bodies: Array<{ path: string; body: string }>;
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => unknown;
  close(): Promise<void>;
}

export async function fakeServer(
  handle: FakeServer['handle'] = (_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true }));
  },
): Promise<FakeServer> {
  const fake = { hits: new Map<string, number>(), bodies: [], handle } as unknown as FakeServer;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const body = Buffer.concat(chunks).toString('utf8');
      fake.hits.set(path, (fake.hits.get(path) ?? 0) + 1);
      fake.bodies.push({ path, body });
      void Promise.resolve(fake.handle(req, res, body)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return fake;
}

export function json(res: ServerResponse, status: number, body: unknown) {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
}

/** Creates a workflow through the workflow service and returns its body. */
export async function createWorkflow(
  who: Caller,
  workflowUrl: string,
  def: Record<string, unknown>,
): Promise<any> {
  const res = await who.call('POST', `${workflowUrl}/api/v1/workflows`, { trigger: 'manual', ...def });
  if (res.status !== 201) throw new Error(`create workflow: ${res.status} ${res.text}`);
  return res.body;
}

export async function execute(
  who: Caller,
  workflowUrl: string,
  id: string,
  input: unknown = {},
): Promise<any> {
  const res = await who.call('POST', `${workflowUrl}/api/v1/workflows/${id}/execute`, { input });
  if (res.status !== 202) throw new Error(`execute: ${res.status} ${res.text}`);
  return res.body;
}
