import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from 'mongoose';
import { connectMongo, createLogger } from '@platform/kit';
import {
  http,
  startServiceProcess,
  startStack,
  type ServiceProcess,
  type TestStack,
} from '@platform/testing';
import { organizationModel } from '../../auth/src/models/organization.ts';
import { login, signup } from '../../auth/test/support.ts';

interface Hit {
  sent: number;
  at: number;
  status: number;
  headers?: Headers;
  body?: string;
}

/**
 * Sends requests as fast as `concurrency` clients can, alternating between the gateways, until
 * `stop` says so; records when each answer arrived and its status. The path is an authenticated
 * one that the auth service answers (404) without touching its database: what the upstream says
 * does not matter to the limit, and fast answers keep the arrival times close to the gateways'
 * decisions. A success is any answer but 429.
 */
const PROBE = '/api/v1/auth/rate-limit-probe';
async function hammer(
  urls: string[],
  token: string,
  concurrency: number,
  stop: (hits: Hit[], started: number) => boolean,
): Promise<{ hits: Hit[]; started: number }> {
  const hits: Hit[] = [];
  const started = Date.now();
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!stop(hits, started)) {
        const url = urls[n++ % urls.length]!;
        const sent = Date.now();
        const res = await fetch(`${url}${PROBE}`, { headers: { authorization: `Bearer ${token}` } });
        const body = await res.text();
        const hit: Hit = { sent, at: Date.now(), status: res.status };
        if (res.status === 429 || hits.length < 5) Object.assign(hit, { headers: res.headers, body });
        hits.push(hit);
      }
    }),
  );
  return { hits, started };
}

/**
 * The most successes decided within any `windowMs`, as a client can know it: a gateway decides
 * between the request's sending and the answer's arrival, so requests that were sent and answered
 * inside one window were decided inside it (on a loaded machine, arrival times alone would add the
 * latency jitter to the figure).
 */
function maxInAnyWindow(hits: Hit[], windowMs: number): number {
  const ok = hits.filter((h) => h.status !== 429).sort((a, b) => a.sent - b.sent);
  let best = 0;
  for (let j = 0; j < ok.length; j++) {
    const end = ok[j]!.sent + windowMs;
    let count = 0;
    for (let i = j; i < ok.length && ok[i]!.sent <= end; i++) if (ok[i]!.at <= end) count++;
    best = Math.max(best, count);
  }
  return best;
}

const successesBeforeFirst429 = (hits: Hit[]) => {
  const first = hits.findIndex((h) => h.status === 429);
  return hits.slice(0, first === -1 ? hits.length : first).filter((h) => h.status !== 429).length;
};

/**
 * Two gateway processes share one budget per organization through NATS. Pro at its real figure
 * (1,000 per 60 s: at least 950 before the first 429, at most 1,010 in the minute), a scaled plan
 * (500 per 5 s) hammered for more than two windows to check the sliding bound, and Enterprise
 * unlimited.
 */
describe('rate limits across two gateways', () => {
  let stack: TestStack;
  let second: ServiceProcess;
  let db: Connection;
  const plans = 'pro=1000/60,enterprise=unlimited,scaled=500/5';

  beforeAll(async () => {
    stack = await startStack(['auth'], { serviceEnv: { gateway: { RATE_LIMIT_PLANS: plans } } });
    second = await startServiceProcess('gateway', {
      ...stack.env,
      AUTH_URL: stack.services.auth!.url,
      RATE_LIMIT_PLANS: plans,
    });
    db = await connectMongo(stack.mongo.url, 'auth', createLogger('test', 'silent'));
  });
  afterAll(async () => {
    await db?.close();
    await second?.stop();
    await stack?.dispose();
  });

  /** A new organization on `plan`, and an access token that carries it. */
  const orgOn = async (plan: string) => {
    const account = await signup(stack.url);
    await organizationModel(db).updateOne({ _id: account.orgId }, { $set: { plan } });
    return (await login(stack.url, account.email)).body.accessToken as string;
  };

  it('Pro: 1,000 per minute across both gateways, at least 950 before the first 429', async () => {
    const token = await orgOn('pro');
    const first = await http('GET', `${second.url}/api/v1/auth/me`, { token });
    expect(first.headers.get('ratelimit-policy')).toBe('"pro";q=1000;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"pro";r=\d+;t=\d+$/);
    expect(first.headers.get('ratelimit-limit')).toBe('1000');
    expect(Number(first.headers.get('ratelimit-remaining'))).toBeGreaterThan(990);
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    // Until 200 refusals have come back (well under a minute), alternating gateways.
    const { hits, started } = await hammer([stack.url, second.url], token, 16, (h) => {
      return h.filter((x) => x.status === 429).length >= 200;
    });
    const elapsed = Date.now() - started;
    const ok = hits.filter((h) => h.status !== 429).length + 1;
    const before = successesBeforeFirst429(hits) + 1;
    process.stdout.write(
      `pro: ${ok} successes in ${elapsed} ms over two gateways; ${before} before the first 429\n`,
    );
    expect(elapsed).toBeLessThan(55_000);
    expect(ok).toBeLessThanOrEqual(1010);
    expect(before).toBeGreaterThanOrEqual(950);
    expect(hits.every((h) => h.status === 404 || h.status === 429)).toBe(true);
    const refused = hits.find((h) => h.status === 429)!;
    expect(Number(refused.headers!.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers!.get('content-type')).toContain('application/problem+json');
    expect(JSON.parse(refused.body!).type).toMatch(/\/quota-exceeded$/);
    expect(refused.headers!.get('ratelimit-remaining')).toBe('0');
    expect(refused.headers!.get('ratelimit')).toMatch(/^"pro";r=0;t=\d+$/);
  });

  it('a scaled plan (500 per 5 s) holds the bound in every sliding window over 2.5 windows', async () => {
    const token = await orgOn('scaled');
    const { hits } = await hammer(
      [stack.url, second.url],
      token,
      16,
      (_h, started) => Date.now() - started > 12_500,
    );
    const ok = hits.filter((h) => h.status !== 429).length;
    const max = maxInAnyWindow(hits, 5_000);
    const before = successesBeforeFirst429(hits);
    process.stdout.write(
      `scaled: ${ok}/${hits.length} admitted, max ${max} in any 5 s; ${before} before the first 429\n`,
    );
    expect(max).toBeLessThanOrEqual(505);
    expect(before).toBeGreaterThanOrEqual(475);
    // The window slides: after refusals, capacity comes back as the first requests age out.
    const firstRefusal = hits.find((h) => h.status === 429)!;
    expect(hits.some((h) => h.status !== 429 && h.sent > firstRefusal.at)).toBe(true);
    expect(ok).toBeGreaterThan(500);
  });

  it('Enterprise is unlimited and carries no rate-limit fields', async () => {
    const token = await orgOn('enterprise');
    const { hits } = await hammer([stack.url, second.url], token, 16, (h) => h.length >= 1_200);
    expect(hits.filter((h) => h.status === 404).length).toBe(hits.length);
    expect(hits[0]!.headers!.get('ratelimit')).toBeNull();
    expect(hits[0]!.headers!.get('ratelimit-limit')).toBeNull();
  });

  it('public routes are not counted against any organization', async () => {
    const res = await http('GET', `${stack.url}/api/v1/.well-known/jwks.json`);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });
});
