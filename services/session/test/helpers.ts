import { randomUUID } from 'node:crypto';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  sessionIngest,
  type SessionChannel,
  type SessionEndCommand,
  type SessionEventCommand,
  type SessionMessageCommand,
  type SessionStartCommand,
  type SessionType,
} from '@platform/contracts';
import { publishCommand } from '@platform/kit';
import {
  http,
  internalHeaders,
  startInfra,
  startServiceProcess,
  type ServiceProcess,
  type TestInfra,
} from '@platform/testing';

/** This file's own nats-server, FerretDB and session service process, plus a NATS client. */
export interface SessionHarness {
  infra: TestInfra;
  service: ServiceProcess;
  nc: NatsConnection;
  js: JetStreamClient;
  url: string;
  dispose(): Promise<void>;
}

export async function startSessionHarness(env: Record<string, string> = {}): Promise<SessionHarness> {
  const infra = await startInfra();
  const service = await startServiceProcess('session', { ...infra.env, ...env });
  const nc = await connect({ servers: infra.nats.url });
  return {
    infra,
    service,
    nc,
    js: jetstream(nc),
    url: `${service.url}/api/v1/sessions`,
    dispose: async () => {
      await nc.close().catch(() => undefined);
      await service.stop();
      await infra.dispose();
    },
  };
}

export const newOrg = () => `org_${randomUUID().replace(/-/g, '')}`;

/** GET/POST a session route as a member of an organization (the gateway's internal token). */
export async function call(
  method: string,
  url: string,
  orgId: string,
  options: { role?: 'owner' | 'admin' | 'developer' | 'viewer'; body?: unknown } = {},
) {
  const headers = await internalHeaders({ orgId, role: options.role ?? 'owner' });
  return http(method, url, { headers, ...(options.body !== undefined ? { body: options.body } : {}) });
}

export interface StartSpec {
  orgId: string;
  sessionId?: string;
  agentId?: string;
  agentName?: string;
  channel?: SessionChannel;
  sessionType?: SessionType;
  startTime?: Date;
  metadata?: Record<string, unknown>;
}

export async function publishStart(
  js: JetStreamClient,
  spec: StartSpec,
  source: 'agent' | 'adapter' = 'agent',
) {
  const cmd: SessionStartCommand = {
    id: `start-${randomUUID()}`,
    orgId: spec.orgId,
    sessionId: spec.sessionId ?? randomUUID(),
    agentId: spec.agentId ?? 'agent-1',
    agentName: spec.agentName ?? 'Support Bot',
    agentVersion: '1.0.0',
    channel: spec.channel ?? 'Web',
    sessionType: spec.sessionType ?? 'chat',
    ...(spec.startTime ? { startTime: spec.startTime.toISOString() } : {}),
    metadata: spec.metadata ?? {},
  };
  await publishCommand(js, sessionIngest[source].start, cmd);
  return cmd;
}

export async function publishMessage(
  js: JetStreamClient,
  m: Omit<SessionMessageCommand, 'id' | 'timestamp'> & { id?: string; timestamp?: string },
) {
  const cmd: SessionMessageCommand = {
    id: m.id ?? `msg-${randomUUID()}`,
    timestamp: m.timestamp ?? new Date().toISOString(),
    ...m,
  } as SessionMessageCommand;
  await publishCommand(js, sessionIngest.agent.message, cmd);
  return cmd;
}

export async function publishEnd(js: JetStreamClient, e: Omit<SessionEndCommand, 'id'> & { id?: string }) {
  const cmd = { id: e.id ?? `end-${randomUUID()}`, ...e } as SessionEndCommand;
  await publishCommand(js, sessionIngest.agent.end, cmd);
  return cmd;
}

export async function publishSystemEvent(
  js: JetStreamClient,
  e: Omit<SessionEventCommand, 'id'> & { id?: string },
  source: 'agent' | 'adapter' = 'adapter',
) {
  const cmd = { id: e.id ?? `evt-${randomUUID()}`, ...e } as SessionEventCommand;
  await publishCommand(js, sessionIngest[source].event, cmd);
  return cmd;
}

/** Polls until `check` returns a truthy value (the ingest is asynchronous). */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met in ${timeoutMs} ms ${last ? String(last) : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the organization's list holds `count` sessions with `status` (or any). */
export async function waitForCount(h: SessionHarness, orgId: string, count: number, query = '') {
  return waitFor(async () => {
    const res = await call('GET', `${h.url}?pageSize=1${query}`, orgId);
    return res.status === 200 && res.body.total === count ? res.body : undefined;
  });
}
