import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Role } from '@platform/contracts';
import {
  http,
  internalHeaders,
  startInfra,
  startServiceProcess,
  TEST_KEY_RING,
  type HttpResult,
  type ServiceProcess,
  type TestInfra,
} from '@platform/testing';
import { byPrefix, startFake, type FakeServer } from './fakes/server.ts';
import { openAiFake, restFake, webhookReceiverFake } from './fakes/apis.ts';
import { slackFake, telegramFake, twilioFake, whatsappFake } from './fakes/messaging.ts';

/** One org id per test organization, unique per run. */
export const newOrg = (name: string) => `org_${name}_${randomBytes(4).toString('hex')}`;

/** Env that points every integration's base URL at the fake server. */
export function fakeEnv(fake: FakeServer): Record<string, string> {
  return {
    SLACK_API_URL: `${fake.url}/slack/api`,
    TELEGRAM_API_URL: `${fake.url}/telegram`,
    WHATSAPP_API_URL: `${fake.url}/whatsapp/v21.0`,
    TWILIO_API_URL: `${fake.url}/twilio`,
    OPENAI_API_URL: `${fake.url}/openai/v1`,
  };
}

export interface Harness {
  infra: TestInfra;
  service: ServiceProcess;
  fake: FakeServer;
  nc: NatsConnection;
  /** Calls the service directly as a member of `org` with `role` (as the gateway would). */
  api<T = any>(
    org: string,
    method: string,
    path: string,
    options?: { body?: unknown; role?: Role; headers?: Record<string, string> },
  ): Promise<HttpResult<T>>;
  /** A raw NATS request to a subject: the reply envelope as JSON (to see `retryable`). */
  rpc(subject: string, payload: unknown, timeoutMs?: number): Promise<any>;
  /** Starts (again) the service process with extra env (same infra). */
  restart(env?: Record<string, string>): Promise<void>;
  dispose(): Promise<void>;
}

/** This file's own nats-server, FerretDB, fake third parties and integration service. */
export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const infra = await startInfra();
  const fake = await startFake(
    byPrefix({
      '/slack': slackFake,
      '/telegram': telegramFake,
      '/whatsapp': whatsappFake,
      '/twilio': twilioFake,
      '/openai': openAiFake,
      '/rest': restFake,
      '/hook': webhookReceiverFake,
    }),
  );
  const serviceEnv = (extra: Record<string, string>) => ({
    ...infra.env,
    CREDENTIALS_KEYS: TEST_KEY_RING,
    ALLOW_PRIVATE_NETWORK: 'true',
    TEST_TIMEOUT_MS: '2000',
    ...fakeEnv(fake),
    ...extra,
  });
  let service = await startServiceProcess('integration', serviceEnv(env));
  const nc = await connect({ servers: infra.nats.url });
  const harness: Harness = {
    infra,
    fake,
    nc,
    get service() {
      return service;
    },
    async api(org, method, path, options = {}) {
      const headers = {
        ...(await internalHeaders({ orgId: org, role: options.role ?? 'owner', userId: 'usr_test' })),
        ...options.headers,
      };
      return http(method, `${service.url}${path}`, { body: options.body, headers });
    },
    async rpc(subject, payload, timeoutMs = 10_000) {
      const reply = await nc.request(subject, JSON.stringify(payload), { timeout: timeoutMs });
      return JSON.parse(reply.string());
    },
    async restart(extra = {}) {
      await service.stop();
      service = await startServiceProcess('integration', serviceEnv(extra));
    },
    async dispose() {
      await nc.close().catch(() => undefined);
      await service?.stop();
      await fake.close();
      await infra.dispose();
    },
  };
  return harness;
}

export async function waitFor<T>(probe: () => T | Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
