// Executions benchmark: a 3-step workflow (transform → http to a local server → transform)
// triggered at a fixed rate through the gateway; reports completed executions per second,
// trigger→completion p50/p95/p99, lost and duplicated executions, memory, and where the time goes.
// Run: node --import tsx bench/executions/run.ts   (BENCH_RATE=300 BENCH_SECONDS=20 by default)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import mongoose from 'mongoose';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { startStack, uniqueEmail } from '@platform/testing';
import { enableFerretDbProfile, profileFerretDb } from '../lib/ferretdb-profile.ts';
import { jsonRequest } from '../lib/http-client.ts';
import { cpuWindow, memoryMb } from '../lib/proc.ts';

const rate = Number(process.env.BENCH_RATE ?? 300);
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const concurrency = process.env.BENCH_ENGINE_CONCURRENCY ?? '128';

const pct = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (v: number) => `${v.toFixed(1)} ms`;
const rssMb = (pid: number | undefined) => `${memoryMb(pid)} MB`;

// FerretDB's CPU profile over the measured window (BENCH_FERRETDB_PROFILE=0 turns it off).
const ferretProfileAddr =
  process.env.BENCH_FERRETDB_PROFILE === '0' ? undefined : await enableFerretDbProfile();

console.log(`starting nats-server, FerretDB, auth, workflow, execution and the gateway…`);
const stack = await startStack(['auth', 'workflow', 'execution'], {
  serviceEnv: {
    auth: { DEFAULT_PLAN: 'enterprise' }, // unlimited requests: the benchmark measures the engine
    execution: { ALLOW_PRIVATE_NETWORK: 'true', EXECUTION_CONCURRENCY: concurrency },
  },
});

// The local server the http step calls; hits are counted per execution id (duplicates show here).
const hits = new Map<string, number>();
const target = createServer((req, res) => {
  const id = (req.url ?? '').split('/')[2] ?? '';
  hits.set(id, (hits.get(id) ?? 0) + 1);
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ id, ok: true }));
  });
});
await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;

const api = (method: string, path: string, token?: string, body?: unknown) =>
  jsonRequest(method, `${stack.url}${path}`, { token, body });

const signup = await api('POST', '/api/v1/auth/signup', undefined, {
  organizationName: 'Bench',
  email: uniqueEmail('bench'),
  password: 'correct horse battery staple',
});
if (signup.status !== 201) throw new Error(`signup failed: ${signup.status} ${JSON.stringify(signup.body)}`);
const token: string = signup.body.accessToken;
const created = await api('POST', '/api/v1/workflows', token, {
  name: 'bench: transform → http → transform',
  trigger: 'manual',
  steps: [
    { id: 'prep', type: 'transform', settings: { expression: '{"n": input.n, "doubled": input.n * 2}' } },
    {
      id: 'call',
      type: 'http',
      settings: {
        method: 'POST',
        url: `${targetUrl}/hit/{{ execution.id }}`,
        body: { n: '{{ steps.prep.output.n }}' },
      },
    },
    {
      id: 'done',
      type: 'transform',
      settings: { expression: '{"status": steps.call.output.status, "n": steps.prep.output.doubled}' },
    },
  ],
});
if (created.status !== 201)
  throw new Error(`create failed: ${created.status} ${JSON.stringify(created.body)}`);
const workflowId: string = created.body.id;

// Completions are seen as they happen on the event stream (core subscription, no polling).
const nc = await connect({ servers: stack.nats.url });
const finished = new Map<string, { at: number; status: string }>();
let terminalEvents = 0;
for (const status of ['succeeded', 'failed', 'cancelled']) {
  nc.subscribe(`evt.execution.${status}`, {
    callback: (_err, msg) => {
      const event = msg.json<{ data: { executionId: string } }>();
      terminalEvents++;
      if (!finished.has(event.data.executionId))
        finished.set(event.data.executionId, { at: performance.now(), status });
    },
  });
}

interface Trigger {
  sentAt: number;
  acceptedAt?: number;
  id?: string;
  status?: number;
}
const fire = async (n: number, into: Trigger[]) => {
  const t: Trigger = { sentAt: performance.now() };
  into.push(t);
  try {
    const res = await api('POST', `/api/v1/workflows/${workflowId}/execute`, token, { input: { n } });
    t.acceptedAt = performance.now();
    t.status = res.status;
    if (res.status === 202) t.id = res.body.id;
  } catch {
    t.status = 0;
  }
};

// Warm-up (JIT, connection pools), not measured.
const warm: Trigger[] = [];
await Promise.all(Array.from({ length: 50 }, (_, i) => fire(i, warm)));
const warmDeadline = Date.now() + 30_000;
while (warm.some((t) => t.id && !finished.has(t.id)) && Date.now() < warmDeadline)
  await new Promise((r) => setTimeout(r, 100));

// Baseline measured in the same run: the storage server's own write rate and latency.
const baseline = await (async () => {
  const conn = await mongoose
    .createConnection(stack.mongo.url, { dbName: 'bench_baseline', maxPoolSize: 32 })
    .asPromise();
  const c = conn.db!.collection('docs');
  const doc = {
    orgId: 'o',
    status: 'queued',
    steps: [{ id: 'a' }, { id: 'b' }, { id: 'c' }],
    pad: 'x'.repeat(1500),
  };
  const n = 600;
  const run = async (fn: (i: number) => Promise<unknown>) => {
    const lat: number[] = [];
    let i = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (i < n) {
          const k = i++;
          const s = performance.now();
          await fn(k);
          lat.push(performance.now() - s);
        }
      }),
    );
    return { perSecond: n / ((performance.now() - t0) / 1000), p50: pct(lat, 50) };
  };
  const insert = await run((i) => c.insertOne({ _id: `d${i}` as never, ...doc }));
  const update = await run((i) => c.updateOne({ _id: `d${i}` as never }, { $set: { status: 'running' } }));
  const js = jetstream(nc);
  await (await jetstreamManager(nc)).streams.add({ name: 'BENCH', subjects: ['bench.>'] });
  const publish = await run((i) => js.publish('bench.x', `{"i":${i}}`));
  await conn.close();
  return { insert, update, publish };
})();

console.log(`measuring: ${rate} executions/s for ${seconds} s through the gateway…`);
const triggers: Trigger[] = [];
const total = rate * seconds;
// CPU time of every process on the path, over the measured window (trigger to last completion).
const cpu = cpuWindow({
  ferretdb: [stack.mongo.pid()],
  nats: [stack.nats.pid()],
  gateway: [stack.gateway?.process.child.pid],
  auth: [stack.services.auth?.process.child.pid],
  workflow: [stack.services.workflow?.process.child.pid],
  execution: [stack.services.execution?.process.child.pid],
  'bench (load + http target)': [process.pid],
});
const ferretProfile = ferretProfileAddr
  ? profileFerretDb(ferretProfileAddr, Math.max(5, Math.min(seconds, 30)))
  : undefined;
const t0 = performance.now();
const inflight = new Set<Promise<void>>();
for (let i = 0; i < total; i++) {
  const due = t0 + (i * 1000) / rate;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((r) => setTimeout(r, wait));
  const p = fire(i, triggers).finally(() => inflight.delete(p));
  inflight.add(p);
}
const sendSeconds = (performance.now() - t0) / 1000;
await Promise.all(inflight);
const accepted = triggers.filter((t) => t.id);
const refused = new Map<number, number>();
for (const t of triggers) if (!t.id) refused.set(t.status ?? 0, (refused.get(t.status ?? 0) ?? 0) + 1);
const deadline = Date.now() + 60_000;
while (accepted.some((t) => !finished.has(t.id!)) && Date.now() < deadline)
  await new Promise((r) => setTimeout(r, 200));

const cpuUsed = cpu.stop();
const done = accepted.filter((t) => finished.get(t.id!)?.status === 'succeeded');
const failed = accepted.filter((t) => finished.has(t.id!) && finished.get(t.id!)!.status !== 'succeeded');
const lost = accepted.filter((t) => !finished.has(t.id!));
const duplicated = accepted.filter((t) => (hits.get(t.id!) ?? 0) > 1);
const latencies = done.map((t) => finished.get(t.id!)!.at - t.sentAt);
const acceptLatencies = accepted.map((t) => t.acceptedAt! - t.sentAt);
const lastDone = Math.max(...done.map((t) => finished.get(t.id!)!.at));
const throughput = done.length / ((lastDone - t0) / 1000);

// Where the time goes, from the executions' own timestamps (a sample read one by one by id).
const queueWait: number[] = [];
const runTime: number[] = [];
const step = Math.max(1, Math.floor(done.length / 100));
for (let i = 0; i < done.length; i += step) {
  const e = await api('GET', `/api/v1/executions/${done[i]!.id}`, token);
  if (e.status !== 200 || !e.body.startedAt || !e.body.finishedAt) continue;
  queueWait.push(Date.parse(e.body.startedAt) - Date.parse(e.body.createdAt));
  runTime.push(Date.parse(e.body.finishedAt) - Date.parse(e.body.startedAt));
}

console.log('\n== bench/executions ==');
console.log(
  `offered: ${total} executions at ${rate}/s (sent in ${sendSeconds.toFixed(1)} s); accepted (202): ${accepted.length}`,
);
if (refused.size > 0) console.log(`not accepted, by status: ${JSON.stringify(Object.fromEntries(refused))}`);
console.log(
  `completed: ${done.length} succeeded, ${failed.length} failed; lost: ${lost.length}; duplicated: ${duplicated.length}`,
);
console.log(`throughput: ${throughput.toFixed(1)} executions/s completed`);
console.log(
  `trigger → completion: p50 ${ms(pct(latencies, 50))}, p95 ${ms(pct(latencies, 95))}, p99 ${ms(pct(latencies, 99))}`,
);
console.log(`trigger → 202: p50 ${ms(pct(acceptLatencies, 50))}, p95 ${ms(pct(acceptLatencies, 95))}`);
console.log(
  `where the time goes (sample of ${queueWait.length}): queued → started p50 ${ms(pct(queueWait, 50))} p95 ${ms(pct(queueWait, 95))}; ` +
    `started → finished p50 ${ms(pct(runTime, 50))} p95 ${ms(pct(runTime, 95))}`,
);
console.log(
  `baseline, same run (FerretDB, 16 concurrent): insert ${baseline.insert.perSecond.toFixed(0)}/s (p50 ${ms(baseline.insert.p50)}), ` +
    `update by _id ${baseline.update.perSecond.toFixed(0)}/s (p50 ${ms(baseline.update.p50)}); ` +
    `JetStream publish ${baseline.publish.perSecond.toFixed(0)}/s (p50 ${ms(baseline.publish.p50)})`,
);
console.log(
  `storage per execution: 3 writes (insert by the creator or the runner, whichever comes first; start + step 1 + step 2 running; ` +
    `step 2 result + step 3 + finish, logs batched into them), sometimes 1 refused insert (the other one's), no reads ` +
    `(workflow from the execute-path cache, cancel requests from the replicas' KV mirror, a new execution's first delivery unread); ` +
    `JetStream: 1 work message, 3 events, 1 ack`,
);
console.log(
  `memory (RSS): gateway ${rssMb(stack.gateway?.process.child.pid)}, workflow ${rssMb(stack.services.workflow?.process.child.pid)}, ` +
    `execution ${rssMb(stack.services.execution?.process.child.pid)}, bench ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`,
);
console.log(`terminal events seen: ${terminalEvents}`);
const busy = cpuUsed.used.reduce((sum, u) => sum + u.cpuSeconds, 0);
const cores = availableParallelism();
console.log(
  `CPU per execution, by process (${cpuUsed.seconds.toFixed(1)} s window, ${(busy / cpuUsed.seconds).toFixed(2)} of ${cores} cores busy): ` +
    cpuUsed.perUnit(accepted.length),
);
// What the CPU figures allow on this machine: every process of the path shares its cores.
const perExecution = (name?: string) =>
  (name ? (cpuUsed.used.find((u) => u.name === name)?.cpuSeconds ?? 0) : busy) / accepted.length;
console.log(
  `ceiling on ${cores} cores from CPU per execution: whole path ${(cores / perExecution()).toFixed(0)}/s; ` +
    `FerretDB alone, if it had every core ${(cores / perExecution('ferretdb')).toFixed(0)}/s`,
);
if (ferretProfile) console.log(await ferretProfile);
for (const t of duplicated.slice(0, 3)) {
  const e = await api('GET', `/api/v1/executions/${t.id}`, token);
  console.log(
    `duplicated ${t.id}: http hits ${hits.get(t.id!)}, attempts ${JSON.stringify(e.body.steps?.map((s: { attempts: number }) => s.attempts))}`,
  );
}

await nc.close();
target.closeAllConnections();
target.close();
await stack.dispose();
process.exit(0);
