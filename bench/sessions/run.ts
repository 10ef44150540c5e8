/**
 * Session benchmark: seeds N sessions (default 1,000,000) into the MongoDB-wire server MONGO_URL names
 * (or a FerretDB it starts), runs the session service against it, and measures p50/p95/p99 of the
 * list queries, metrics and the CSV export (sessions/s, peak memory of the service), at each
 * checkpoint size, with baselines from the same run. Usage:
 *   node --import tsx bench/sessions/run.ts
 *   N=100000 CHECKPOINTS=10000 SAMPLES=20 node --import tsx bench/sessions/run.ts
 * Env: N, CHECKPOINTS (comma list of sizes measured before N), SAMPLES (per query, default 20),
 * QUERY_BUDGET_S (stop sampling a query after this long, at least MIN_SAMPLES: default 60 and 3),
 * MONGO_URL (use an existing server; a database `bench_sessions_<time>` is created and dropped),
 * SKIP_LIST=1 (only metrics, baselines and export), SERVICE_NODE_OPTIONS (NODE_OPTIONS of the service).
 */
import { readFileSync } from 'node:fs';
import mongoose from 'mongoose';
import {
  internalHeaders,
  startMongo,
  startNats,
  startServiceProcess,
  type InfraServer,
} from '@platform/testing';
import { get, percentile } from './http.ts';
import { indexReport } from './indexes.ts';
import { prng, seed } from './seed.ts';

const env = process.env;
const N = Number(env.N ?? 1_000_000);
const checkpoints = [
  ...(env.CHECKPOINTS ?? '100000')
    .split(',')
    .map(Number)
    .filter((n) => n > 0 && n < N),
  N,
];
const SAMPLES = Number(env.SAMPLES ?? 20);
const MIN_SAMPLES = Number(env.MIN_SAMPLES ?? 3);
const BUDGET_MS = Number(env.QUERY_BUDGET_S ?? 60) * 1000;
const orgId = 'org_bench';
const log = (...a: unknown[]) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);

const rssOf = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
};
const mb = (b: number) => `${Math.round(b / 1048576)} MB`;

async function main() {
  let ownMongo: InfraServer | undefined;
  const mongoUrl = env.MONGO_URL ?? (ownMongo = await startMongo()).url;
  const nats = await startNats();
  const dbName = `bench_sessions_${Date.now()}`;
  const service = await startServiceProcess('session', {
    NATS_URL: nats.url,
    MONGO_URL: mongoUrl,
    MONGO_DB: dbName,
    LOG_LEVEL: 'warn',
    // e.g. --max-old-space-size=48: the export must then still stream every session.
    ...(env.SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: env.SERVICE_NODE_OPTIONS } : {}),
  });
  const pid = service.process.child.pid!;
  const db = await mongoose.createConnection(mongoUrl, { dbName }).asPromise();
  const build = (await db.db!.admin().command({ buildInfo: 1 })) as {
    version: string;
    ferretdbVersion?: string;
  };
  const server = build.ferretdbVersion ? `FerretDB ${build.ferretdbVersion}` : `MongoDB ${build.version}`;
  log(
    `server: ${server}; N=${N}; checkpoints=${checkpoints.join(',')}; samples ≤${SAMPLES} (≥${MIN_SAMPLES}, ${BUDGET_MS / 1000}s budget)`,
  );
  // The internal token lives 60 s: a fresh one per request (signing costs microseconds).
  const headersNow = () => internalHeaders({ orgId, role: 'viewer' });
  if (build.ferretdbVersion && !env.KEEP_INDEXES) {
    // FerretDB 1.24 answers these queries by scanning whatever indexes exist (explain below shows no
    // pushdown), so its secondary indexes only slow the seeding down: they are dropped here.
    await db.collection('sessions').dropIndexes();
    log('FerretDB: secondary indexes of sessions dropped for seeding (KEEP_INDEXES=1 keeps them)');
  }
  const base = `${service.url}/api/v1/sessions`;
  const now = Date.now();
  const rand = prng(42);
  const results: Record<string, unknown>[] = [];
  let seeded = 0;
  let anyId = '';

  try {
    for (const size of checkpoints) {
      log(`seeding ${size - seeded} sessions (to ${size})…`);
      const s = await seed(db, orgId, size - seeded, rand, now, (done) => {
        if (done % 100_000 === 0) log(`  ${seeded + done} seeded`);
      });
      seeded = size;
      anyId ||= s.sample[0]!.sessionId;
      log(`seeded at ${Math.round(s.perSecond)} sessions/s`);

      const day = 86_400_000;
      const queries: [string, string][] = [
        ['list first page', `${base}?pageSize=50`],
        [
          'list channel+status+range',
          `${base}?pageSize=50&channel=Web,WhatsApp&status=Completed&from=${new Date(now - 30 * day).toISOString()}&to=${new Date(now - 7 * day).toISOString()}`,
        ],
        ['list search', `${base}?pageSize=50&search=u1234`],
        ['list deep page', `${base}?pageSize=50&page=${Math.max(1, Math.floor(size / 50 / 2))}`],
        ['metrics', `${base}/metrics`],
        ['baseline: get by id', `${base}/${anyId}`],
      ];
      const row: Record<string, unknown> = { size };
      for (const [name, url] of queries) {
        if (env.SKIP_LIST && name.startsWith('list')) continue;
        const times: number[] = [];
        const started = performance.now();
        let status = 0;
        while (
          times.length < SAMPLES &&
          (times.length < MIN_SAMPLES || performance.now() - started < BUDGET_MS)
        ) {
          const t0 = performance.now();
          const res = await get(url, await headersNow());
          times.push(performance.now() - t0);
          status = res.status;
          if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.body.slice(0, 300)}`);
          if (name === 'metrics' && times.length === 1) row.metricsBody = JSON.parse(res.body);
          if (name.startsWith('list') && times.length === 1)
            row[`${name} total`] = JSON.parse(res.body).total;
        }
        times.sort((x, y) => x - y);
        const fmt = (v: number) => Math.round(v * 10) / 10;
        row[name] = {
          n: times.length,
          p50: fmt(percentile(times, 50)),
          p95: fmt(percentile(times, 95)),
          p99: fmt(percentile(times, 99)),
          status,
        };
        log(
          `  ${name.padEnd(28)} n=${times.length} p50=${fmt(percentile(times, 50))} ms p95=${fmt(percentile(times, 95))} ms p99=${fmt(percentile(times, 99))} ms`,
        );
      }

      // Baseline: what metrics would cost if they counted (one countDocuments over the organization).
      const c0 = performance.now();
      const counted = await db.collection('sessions').countDocuments({ orgId });
      row['baseline: countDocuments'] = Math.round(performance.now() - c0);
      log(`  baseline countDocuments({orgId}) = ${counted} in ${row['baseline: countDocuments']} ms`);

      // Export of all sessions as CSV, streamed; the service's memory is sampled meanwhile.
      const rssBefore = rssOf(pid);
      let peak = rssBefore;
      const poll = setInterval(() => {
        peak = Math.max(peak, rssOf(pid));
      }, 50);
      let lines = 0;
      const e0 = performance.now();
      const res = await get(`${base}/export?format=csv`, await headersNow(), (chunk) => {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      const seconds = (performance.now() - e0) / 1000;
      clearInterval(poll);
      const rows = lines - 1;
      row.export = {
        status: res.status,
        rows,
        seconds: Math.round(seconds * 10) / 10,
        perSecond: Math.round(rows / seconds),
        bytes: res.bytes,
        rssBefore: mb(rssBefore),
        peakRss: mb(peak),
      };
      log(
        `  export csv: ${rows} rows in ${seconds.toFixed(1)} s = ${Math.round(rows / seconds)} sessions/s, ${mb(res.bytes)}, service RSS ${mb(rssBefore)} → peak ${mb(peak)}`,
      );
      if (rows !== size) log(`  ! export returned ${rows} rows for ${size} sessions`);
      results.push(row);
    }
    log('indexes that serve each query (as declared in the model; the plan when the server explains one):');
    for (const line of await indexReport(db, orgId, now)) log(`  ${line}`);
    log('summary (p50 / p95 ms):');
    const names = [
      'list first page',
      'list channel+status+range',
      'list search',
      'list deep page',
      'metrics',
      'baseline: get by id',
    ];
    console.log(['query', ...results.map((r) => `N=${r.size}`)].join(' | '));
    for (const name of names) {
      console.log(
        [
          name,
          ...results.map((r) => {
            const v = r[name] as { p50: number; p95: number } | undefined;
            return v ? `${v.p50} / ${v.p95}` : '-';
          }),
        ].join(' | '),
      );
    }
    console.log(
      ['baseline countDocuments (1 run)', ...results.map((r) => `${r['baseline: countDocuments']}`)].join(
        ' | ',
      ),
    );
    console.log(
      [
        'export csv sessions/s (peak RSS)',
        ...results.map((r) => {
          const e = r.export as { perSecond: number; peakRss: string };
          return `${e.perSecond} (${e.peakRss})`;
        }),
      ].join(' | '),
    );
    console.log(JSON.stringify({ server, results }));
  } finally {
    await db.db!.dropDatabase().catch(() => undefined);
    await db.close();
    await service.stop();
    await nats.dispose();
    await ownMongo?.dispose();
  }
}

await main();
