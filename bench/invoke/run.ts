/**
 * bench/invoke: the platform's own cost of one conversational turn. Invocations per second and
 * latency percentiles of `POST /api/v1/agents/{id}/invoke` through the gateway with the local provider
 * (no model time: what remains is gateway, identity, agent service, MongoDB, JetStream bookkeeping),
 * against the same turns computed by a direct call of the local provider function (the baseline).
 *
 *   node --import tsx bench/invoke/run.ts            (BENCH_REQUESTS, BENCH_CONCURRENCY to change)
 *
 * Starts its own nats-server, FerretDB, auth, session, agent and gateway, and stops them at the end.
 */
import { readFileSync } from 'node:fs';
import { AgentConfig } from '@platform/contracts';
import { startStack, uniqueEmail } from '@platform/testing';
import { localComplete } from '../../services/agent/src/providers/local.ts';

const requests = Number(process.env.BENCH_REQUESTS ?? 400);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
const baselineCalls = Number(process.env.BENCH_BASELINE_CALLS ?? 100_000);

const agentConfig = {
  name: 'Bench bot',
  systemPrompt: 'You are a benchmark.',
  maxTurns: 10_000,
  provider: {
    kind: 'local',
    rules: [
      { match: { any: ['hello'] }, reply: 'Hello! I am {{agentName}}.' },
      { match: { any: ['price', 'cost'] }, reply: 'It costs 10 EUR.' },
      { match: { any: ['echo'] }, reply: 'You said: {{message}}' },
    ],
    fallback: 'Sorry?',
  },
};

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(name: string, latenciesMs: number[], wallMs: number) {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const fmt = (n: number) => (n < 1 ? n.toFixed(4) : n.toFixed(1));
  return {
    name,
    count: sorted.length,
    perSecond: Math.round((sorted.length / wallMs) * 1000),
    p50: fmt(percentile(sorted, 50)),
    p95: fmt(percentile(sorted, 95)),
    p99: fmt(percentile(sorted, 99)),
    max: fmt(sorted.at(-1) ?? NaN),
  };
}

function rssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Math.round(Number(kb) / 1024);
  } catch {
    return NaN;
  }
}

async function post(url: string, token: string, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Runs `total` calls of `one` with `workers` in parallel; returns each call's latency and the wall time. */
async function load(total: number, workers: number, one: (i: number, worker: number) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await one(i, worker);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, wallMs: performance.now() - started };
}

async function main() {
  console.log(
    `bench/invoke: ${requests} invocations per scenario, concurrency ${concurrency}; starting the platform…`,
  );
  const stack = await startStack(['auth', 'session', 'agent'], {
    // Enterprise: unlimited, so the gateway's rate limit does not cut the run short.
    serviceEnv: { auth: { DEFAULT_PLAN: 'enterprise' }, agent: { LOG_LEVEL: 'warn' } },
  });
  const agentPid = stack.services.agent?.process.child.pid;
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(agentPid) || 0)), 200);
  try {
    const signup = await post(`${stack.url}/api/v1/auth/signup`, '', {
      organizationName: 'Bench',
      email: uniqueEmail('bench'),
      password: 'correct horse battery',
    });
    const token = signup.accessToken as string;
    const agent = await post(`${stack.url}/api/v1/agents`, token, agentConfig);
    const invokeUrl = `${stack.url}/api/v1/agents/${agent.id as string}/invoke`;
    const rssBefore = rssMb(agentPid);

    // Warm-up (JIT, connection pools, indexes).
    await load(50, concurrency, async () => {
      await post(invokeUrl, token, { message: 'hello', channel: 'Web' });
    });

    // 1. Every invocation starts a new session (start, event and two messages to the session service).
    const fresh = await load(requests, concurrency, async () => {
      await post(invokeUrl, token, { message: 'hello', channel: 'Web' });
    });

    // 2. Every invocation continues one of `concurrency` sessions (lease, context, two messages).
    const sessions: string[] = [];
    for (let w = 0; w < concurrency; w++) {
      sessions.push((await post(invokeUrl, token, { message: 'hello', channel: 'Web' })).sessionId as string);
    }
    const continued = await load(requests, concurrency, async (i, worker) => {
      await post(invokeUrl, token, { message: `echo turn ${i}`, sessionId: sessions[worker] });
    });

    // Baseline: the same turn computed by the provider function itself, in this process.
    const config = AgentConfig.parse(agentConfig);
    const provider = config.provider.kind === 'local' ? config.provider : undefined;
    const request = {
      messages: [
        { role: 'system' as const, content: 'You are a benchmark.' },
        { role: 'user' as const, content: 'echo this please' },
      ],
      model: null,
      temperature: 0.7,
      maxTokens: 1024,
      requestId: 'bench',
    };
    const baselineLatencies: number[] = [];
    const baselineStart = performance.now();
    for (let i = 0; i < baselineCalls; i++) {
      const t = performance.now();
      localComplete(provider!, request, 'Bench bot');
      baselineLatencies.push(performance.now() - t);
    }
    const baselineWall = performance.now() - baselineStart;

    const rows = [
      summary('gateway → agent, new session per turn', fresh.latencies, fresh.wallMs),
      summary('gateway → agent, continued sessions', continued.latencies, continued.wallMs),
      summary('baseline: localComplete() in process', baselineLatencies, baselineWall),
    ];
    console.log('\nlatencies in ms');
    console.table(rows);
    const overheadMs = Number(rows[0]!.p50) - Number(rows[2]!.p50);
    console.log(`platform overhead per turn (p50, new session): ~${overheadMs.toFixed(1)} ms`);
    console.log(`agent service RSS: ${rssBefore} MB before the load, ${peakRss} MB at its peak`);
    console.log(`machine: ${(await import('node:os')).cpus().length} cores, node ${process.version}`);
  } catch (err) {
    const log = readFileSync(stack.services.agent!.logFile, 'utf8').trim().split('\n');
    console.error(`the run failed; the agent service's last log lines:\n${log.slice(-15).join('\n')}`);
    throw err;
  } finally {
    clearInterval(sampler);
    await stack.dispose();
  }
}

await main();
