/**
 * Integration service benchmark: `node --import tsx bench/integration/run.ts`. Starts nats-server,
 * FerretDB, a local receiver and the integration service, creates an outbound-webhook connection, and
 * measures with CONCURRENCY callers for SECONDS each:
 *   baseline    the bench POSTs the same JSON straight to the receiver (the third party's own cost)
 *   run-action  svc.integration.run-action `post` over NATS (lookup, decrypt, validate, sign, POST)
 *   rejected    run-action with invalid input (everything but the outbound call)
 * printing throughput, p50/p95/p99 and the service's resident memory. Env: BENCH_SECONDS (10), BENCH_CONCURRENCY (32).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from '@nats-io/transport-node';
import { http, internalHeaders, startInfra, startServiceProcess, TEST_KEY_RING } from '@platform/testing';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);

interface Result {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  count: number;
}

function percentile(sorted: number[], p: number) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0;
}

/** `concurrency` callers in a closed loop for `seconds`; latency of every call in ms. */
async function closedLoop(call: () => Promise<boolean>): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const ok = await call().catch(() => false);
        latencies.push(performance.now() - t);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    errors,
    count: latencies.length,
  };
}

const rssMb = (pid: number) => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
  return line ? Number(line[1]) / 1024 : NaN;
};

const fmt = (name: string, r: Result) =>
  `${name.padEnd(11)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2).padStart(7)} ms  p95 ${r.p95
    .toFixed(2)
    .padStart(7)} ms  p99 ${r.p99.toFixed(2).padStart(7)} ms  (${r.count} calls, ${r.errors} errors)`;

async function main() {
  console.log(`integration benchmark: ${seconds} s per run, ${concurrency} concurrent callers`);
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end('{"received":true}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const infra = await startInfra();
  const service = await startServiceProcess('integration', {
    ...infra.env,
    CREDENTIALS_KEYS: TEST_KEY_RING,
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: 'info',
  });
  const nc = await connect({ servers: infra.nats.url });
  try {
    const orgId = 'org_bench';
    const created = await http('POST', `${service.url}/api/v1/connections`, {
      headers: await internalHeaders({ orgId, userId: 'usr_bench' }),
      body: {
        integrationId: 'webhook',
        name: 'bench',
        credentials: { url: hookUrl, signingSecret: 'bench-signing-secret' },
      },
    });
    if (created.status !== 201) throw new Error(`could not create the connection: ${created.text}`);
    const connectionId = created.body.id as string;
    const payload = { event: 'order.paid', order: { id: 42, total: 99.5, items: ['a', 'b', 'c'] } };
    const request = (input: unknown) =>
      JSON.stringify({ orgId, connectionId, action: 'post', input, requestId: 'bench' });
    const pid = service.process.child.pid!;
    const rssBefore = rssMb(pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid))), 200);

    const baseline = await closedLoop(async () => {
      const res = await fetch(hookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
      await res.arrayBuffer();
      return res.status === 202;
    });
    console.log(fmt('baseline', baseline));
    const good = request({ payload });
    const runAction = await closedLoop(async () => {
      const reply = JSON.parse(
        (await nc.request('svc.integration.run-action', good, { timeout: 10_000 })).string(),
      );
      return reply.ok === true;
    });
    console.log(fmt('run-action', runAction));
    const bad = request({ nope: 1 });
    const rejected = await closedLoop(async () => {
      const reply = JSON.parse(
        (await nc.request('svc.integration.run-action', bad, { timeout: 10_000 })).string(),
      );
      return reply.ok === false;
    });
    console.log(fmt('rejected', rejected));
    clearInterval(sampler);
    console.log(
      `service memory: RSS ${rssBefore.toFixed(0)} MB before, peak ${rssPeak.toFixed(0)} MB, ${rssMb(pid).toFixed(0)} MB after`,
    );
    console.log(
      `overhead of the integration service per action at p50: ${(runAction.p50 - baseline.p50).toFixed(2)} ms`,
    );
  } finally {
    await nc.close();
    await service.stop();
    await infra.dispose();
    receiver.closeAllConnections();
    receiver.close();
  }
}

await main();
