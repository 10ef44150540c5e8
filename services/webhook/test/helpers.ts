import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Webhook } from 'standardwebhooks';
import {
  http,
  internalHeaders,
  startServiceProcess,
  TEST_KEY_RING,
  type ServiceProcess,
  type TestInfra,
} from '@platform/testing';

/** One request a receiver got. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** What a route of the receiver answers: a status (and headers), or `hang` to never answer. */
export type Behaviour = (
  req: Received,
  nth: number,
) => { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/**
 * A real HTTP server standing for customers' webhook endpoints: each path has its own behaviour and
 * its own list of received requests. Hung requests are released on close.
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly hung = new Set<ServerResponse>();
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** A new path with its behaviour (default: 200); returns its full URL. */
  route(behaviour: Behaviour = () => ({ status: 200 })): string {
    const path = `/hook/${randomUUID()}`;
    this.behaviours.set(path, behaviour);
    return this.url + path;
  }

  setBehaviour(url: string, behaviour: Behaviour) {
    this.behaviours.set(new URL(url).pathname, behaviour);
  }

  at(url: string): Received[] {
    const path = new URL(url).pathname;
    return this.received.filter((r) => r.path === path);
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const got: Received = {
      path: req.url ?? '',
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
      at: Date.now(),
    };
    this.received.push(got);
    const nth = this.received.filter((r) => r.path === got.path).length;
    const behaviour: Behaviour = this.behaviours.get(got.path) ?? (() => ({ status: 404 }));
    const answer = behaviour(got, nth);
    if (answer === 'hang') {
      this.hung.add(res);
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
    res.end(answer.body ?? 'ok');
  }

  async close() {
    for (const res of this.hung) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Verifies a received request with the Standard Webhooks reference code; returns the payload. */
export function verify(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': r.headers['webhook-id']!,
    'webhook-timestamp': r.headers['webhook-timestamp']!,
    'webhook-signature': r.headers['webhook-signature']!,
  });
}

/** Env for the webhook service in tests: local receivers allowed, short retries. */
export function webhookEnv(infra: TestInfra, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...infra.env,
    WEBHOOK_SECRETS_KEYS: TEST_KEY_RING,
    ALLOW_PRIVATE_NETWORK: 'true',
    WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms',
    WEBHOOK_RETRY_JITTER: '0',
    WEBHOOK_SCHEDULER_INTERVAL: '100ms',
    WEBHOOK_ACK_WAIT: '2s',
    WEBHOOK_TIMEOUT: '5s',
    ...extra,
  };
}

export function startWebhook(infra: TestInfra, extra: Record<string, string> = {}): Promise<ServiceProcess> {
  return startServiceProcess('webhook', webhookEnv(infra, extra));
}

/** Publishes domain events to EVENTS the way services do (envelope, event id as Nats-Msg-Id). */
export class EventPublisher {
  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
  ) {}

  static async connect(natsUrl: string) {
    const nc = await connect({ servers: natsUrl });
    return new EventPublisher(nc, jetstream(nc));
  }

  async publish(orgId: string, type: string, data: Record<string, unknown> = {}) {
    const event = { id: randomUUID(), type, createdAt: new Date().toISOString(), orgId, data };
    await this.js.publish(`evt.${type}`, JSON.stringify(event), { msgID: event.id });
    return event;
  }

  close() {
    return this.nc.close();
  }
}

/** A small API client for one organization and role, calling the service directly. */
export function client(
  baseUrl: string,
  orgId: string,
  role: 'owner' | 'admin' | 'developer' | 'viewer' = 'owner',
) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    http(method, `${baseUrl}/api/v1${path}`, {
      body,
      headers: { ...(await internalHeaders({ orgId, role })), ...headers },
    });
  return {
    get: (path: string) => call('GET', path),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      call('POST', path, body, headers),
    patch: (path: string, body: unknown) => call('PATCH', path, body),
    delete: (path: string) => call('DELETE', path),
  };
}

/** Polls until `check` returns a truthy value; fails with the last value seen. */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await check();
    if (last) return last as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms (last: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const orgId = () => `org_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
