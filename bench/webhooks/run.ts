// Webhook delivery benchmark: deliveries per second to a local receiver and the latency from an
// event's publication on EVENTS to its signed delivery. Starts its own nats-server, FerretDB and a
// webhook service process; prints the figures and a baseline (plain HTTP POSTs to the same receiver
// from this process) measured in the same run; stops by itself.
//
//   node --import tsx bench/webhooks/run.ts            (EVENTS=100 ENDPOINTS=4 PACED=40)
//
// The paced phase publishes at half the event rate the burst achieved, so its latency is the
// pipeline's, not a queue's. The storage baseline (serial updates of a same-sized collection on the
// same FerretDB) shows the write rate that bounds deliveries here: each delivery stores its attempt.
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import mongoose from 'mongoose';
import { http, internalHeaders, startInfra, startServiceProcess, TEST_KEY_RING } from '@platform/testing';

const burstEvents = Number(process.env.EVENTS ?? 100);
const endpointCount = Number(process.env.ENDPOINTS ?? 4);
const pacedEvents = Number(process.env.PACED ?? 40);
const deadlineMs = 540_000;

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
const summary = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return `p50 ${pct(s, 50).toFixed(1)} ms, p95 ${pct(s, 95).toFixed(1)} ms, p99 ${pct(s, 99).toFixed(1)} ms`;
};
const peakRssMb = (pid: number) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
};

// --- The receiver: verifies every signature and records when each delivery arrived ----------------------
const secrets = new Map<string, Buffer>(); // path → HMAC key
const arrivals = new Map<string, number>(); // `${webhook-id}|${path}` → time
let badSignatures = 0;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const id = String(req.headers['webhook-id']);
    const key = secrets.get(req.url ?? '');
    if (key) {
      const expected = createHmac('sha256', key)
        .update(`${id}.${req.headers['webhook-timestamp']}.${body}`)
        .digest('base64');
      if (!String(req.headers['webhook-signature']).split(' ').includes(`v1,${expected}`)) badSignatures++;
    }
    if (!arrivals.has(`${id}|${req.url}`)) arrivals.set(`${id}|${req.url}`, performance.now());
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const infra = await startInfra();
const svc = await startServiceProcess('webhook', {
  ...infra.env,
  WEBHOOK_SECRETS_KEYS: TEST_KEY_RING,
  ALLOW_PRIVATE_NETWORK: 'true',
  LOG_LEVEL: 'warn',
});
const nc = await connect({ servers: infra.nats.url });
const js = jetstream(nc);
const orgId = `org_bench_${randomUUID().slice(0, 8)}`;
const auth = await internalHeaders({ orgId, role: 'owner' });

const stopAll = async () => {
  await nc.close().catch(() => undefined);
  await svc.stop();
  await infra.dispose();
  receiver.closeAllConnections();
  receiver.close();
};
const watchdog = setTimeout(() => {
  console.error(`benchmark did not finish in ${deadlineMs / 1000} s; stopping`);
  void stopAll().then(() => process.exit(1));
}, deadlineMs);

try {
  const paths: string[] = [];
  for (let i = 0; i < endpointCount; i++) {
    const path = `/hook/${i}`;
    const res = await http('POST', `${svc.url}/api/v1/webhooks`, {
      body: { url: receiverUrl + path, events: ['*'] },
      headers: auth,
    });
    if (res.status !== 201) throw new Error(`could not register an endpoint: ${res.status} ${res.text}`);
    secrets.set(path, Buffer.from(String(res.body.secret).slice(6), 'base64'));
    paths.push(path);
  }

  const publish = async (sent: Map<string, number>) => {
    const event = {
      id: randomUUID(),
      type: 'execution.succeeded',
      createdAt: new Date().toISOString(),
      orgId,
      data: { executionId: randomUUID(), workflowId: 'wf_bench', status: 'succeeded' },
    };
    sent.set(event.id, performance.now());
    await js.publish('evt.execution.succeeded', JSON.stringify(event), { msgID: event.id });
  };
  const waitDelivered = async (sent: Map<string, number>) => {
    const want = sent.size * paths.length;
    const seen = () =>
      [...sent.keys()].reduce((n, id) => n + paths.filter((p) => arrivals.has(`${id}|${p}`)).length, 0);
    let last = -1;
    for (let tick = 0; ; tick++) {
      const n = seen();
      if (n >= want) return;
      if (process.env.VERBOSE && tick % 40 === 0 && n !== last) console.log(`  … ${n}/${want} delivered`);
      last = n;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const latencies = (sent: Map<string, number>) =>
    [...sent].flatMap(([id, t0]) => paths.map((p) => arrivals.get(`${id}|${p}`)! - t0));

  // Warm-up (JIT, connections, FerretDB caches).
  const warm = new Map<string, number>();
  for (let i = 0; i < 20; i++) await publish(warm);
  await waitDelivered(warm);

  // 1. Burst: every event at once; deliveries per second until the last one arrived.
  const burst = new Map<string, number>();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: burstEvents }, () => publish(burst)));
  await waitDelivered(burst);
  const burstSeconds = (performance.now() - t0) / 1000;
  const burstDeliveries = burstEvents * paths.length;

  // 2. Paced: half the burst's event rate; latency from publication to arrival.
  const pacedRate = Math.max(0.5, burstEvents / burstSeconds / 2);
  const paced = new Map<string, number>();
  const p0 = performance.now();
  for (let i = 0; i < pacedEvents; i++) {
    const due = p0 + (i * 1000) / pacedRate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await publish(paced);
  }
  await waitDelivered(paced);

  // Baseline: the same receiver, plain signed POSTs from this process, 40 at a time.
  const base: number[] = [];
  const b0 = performance.now();
  let next = 0;
  const total = Math.min(burstDeliveries, 5000);
  await Promise.all(
    Array.from({ length: 40 }, async () => {
      while (next < total) {
        const i = next++;
        const path = paths[i % paths.length]!;
        const body = JSON.stringify({ id: `base-${i}`, n: i });
        const ts = Math.floor(Date.now() / 1000);
        const mac = createHmac('sha256', secrets.get(path)!)
          .update(`base-${i}.${ts}.${body}`)
          .digest('base64');
        const s = performance.now();
        const res = await fetch(receiverUrl + path, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': `base-${i}`,
            'webhook-timestamp': String(ts),
            'webhook-signature': `v1,${mac}`,
          },
          body,
        });
        await res.arrayBuffer();
        base.push(performance.now() - s);
      }
    }),
  );
  const baseSeconds = (performance.now() - b0) / 1000;

  // Storage baseline: serial single-document updates on a collection as large as `deliveries` now,
  // on the same FerretDB (what storing one attempt costs here).
  const conn = await mongoose.createConnection(infra.mongo.url, { dbName: 'bench_baseline' }).asPromise();
  const scratch = conn.db!.collection<{ _id: string; n: number; payload: string }>('scratch');
  const size = burstDeliveries + pacedEvents * paths.length;
  await scratch.insertMany(
    Array.from({ length: size }, (_, i) => ({ _id: `d${i}`, n: 0, payload: 'x'.repeat(400) })),
  );
  const u0 = performance.now();
  const updates = 100;
  for (let i = 0; i < updates; i++)
    await scratch.updateOne({ _id: `d${(i * 7919) % size}` }, { $inc: { n: 1 } });
  const updatesPerSecond = updates / ((performance.now() - u0) / 1000);
  await conn.close();

  console.log(`webhook delivery benchmark (${endpointCount} endpoints subscribed to *, 2 cores shared)`);
  console.log(
    `  burst:   ${burstEvents} events → ${burstDeliveries} deliveries in ${burstSeconds.toFixed(1)} s = ` +
      `${Math.round(burstDeliveries / burstSeconds)} deliveries/s; event→delivery ${summary(latencies(burst))}`,
  );
  console.log(
    `  paced:   ${pacedEvents} events at ${pacedRate.toFixed(1)}/s (${(pacedRate * endpointCount).toFixed(1)} deliveries/s); ` +
      `event→delivery ${summary(latencies(paced))}`,
  );
  console.log(
    `  baseline (plain signed POSTs from the bench process, 40 concurrent): ${total} in ${baseSeconds.toFixed(1)} s = ` +
      `${Math.round(total / baseSeconds)} requests/s; ${summary(base)}`,
  );
  console.log(
    `  baseline (FerretDB, serial updates of one document in a ${size}-document collection): ` +
      `${Math.round(updatesPerSecond)} updates/s`,
  );
  console.log(
    `  load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    `  webhook service peak RSS: ${peakRssMb(svc.process.child.pid!)} MB; bad signatures: ${badSignatures}`,
  );
} finally {
  clearTimeout(watchdog);
  await stopAll();
}
