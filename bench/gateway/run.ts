// Gateway benchmark: `node --import tsx bench/gateway/run.ts` (needs Debian's nginx:
// `apt-get install -y nginx-light`). One run on this machine measures an authenticated GET
//   direct   client → service (with an internal token, as the gateway would send it)
//   nginx    client → nginx → service
//   gateway  client → gateway (access JWT, revocations, rate limit, internal token) → service
// at a fixed arrival rate of 1,000 requests/s (p50/p99, keep-alive), then the most each path
// sustains with 32 concurrent clients, and the gateway's CPU time per request (requests/s per core).
// The load comes from bench/gateway/loadgen (Go, built once per change by
// scripts/infra/ensure-loadgen.sh): a Node generator took a large share of a core itself and its
// garbage collection showed in p99. Each line shows how many requests left more than 1 ms late
// and the generator's own CPU time per request.
// Env: BENCH_SECONDS (15), BENCH_ROUNDS (3), BENCH_PIN (0), BENCH_RATE (1000), BENCH_SUSTAIN_RATE (2500), LOG_LEVEL (info, as in
// production), LOADGEN_GOMAXPROCS (1).
import { rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectMongo, createLogger, signInternalToken } from '@platform/kit';
import {
  freePort,
  http,
  spawnManaged,
  startInfra,
  startServiceProcess,
  TEST_INTERNAL_SECRET,
  uniqueEmail,
  waitForPort,
} from '@platform/testing';
import { organizationModel } from '../../services/auth/src/models/organization.ts';
import { childrenOf, cpuSeconds, pinToCpus } from '../lib/proc.ts';
import { ECHO_PATH } from './echo-service.ts';
import { closedLoop, fixedRate, loadgenBinary, loadgenThreads, type LoadResult } from './go-load.ts';
import { startNginx } from './nginx.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
/** Fixed-rate rounds per path (BENCH_ROUNDS, default 3). */
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * BENCH_PIN=1 gives each proxy a core of its own (see where pinning is done). Off by default: on a
 * 2-core machine the service and the generator then share one core and the direct path's tail grows.
 */
const pinned = process.env.BENCH_PIN === '1' && availableParallelism() >= 2;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const rate = Number(process.env.BENCH_RATE ?? 1000);
const logLevel = process.env.LOG_LEVEL ?? 'info';
/** The gateway's V8 settings in deploy/k8s/base/services/gateway.yaml (NODE_OPTIONS), unless overridden. */
const gatewayNodeOptions = process.env.GATEWAY_NODE_OPTIONS ?? '--max-semi-space-size=64';

/**
 * A node process whose output goes straight to a file: through a pipe to this process, a busy
 * load generator would make the services wait on their log writes (pino writes synchronously).
 */
async function startLogged(name: string, script: string, env: Record<string, string>) {
  const port = await freePort();
  const logFile = join(tmpdir(), `ap-bench-${name}-${port}.log`);
  const proc = spawnManaged(
    name,
    '/bin/sh',
    ['-c', 'exec "$0" --import tsx "$1" >>"$2" 2>&1', process.execPath, join(root, script), logFile],
    { cwd: root, env: { ...process.env, HOST: '127.0.0.1', ...env, PORT: String(port) } },
  );
  await waitForPort(port, 30_000);
  return { url: `http://127.0.0.1:${port}`, port, pid: proc.child.pid!, stop: () => proc.stop(), logFile };
}

const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);

const ms = (v: number, digits: number) => v.toFixed(digits).padStart(6);
/** The figures of a run, then the generator's own CPU time per request sent. */
const fmt = (r: LoadResult) =>
  `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${ms(r.p50, 2)} ms  p90 ${ms(r.p90, 2)} ms  p99 ${ms(r.p99, 2)} ms` +
  `  max ${ms(r.max, 1)} ms  errors ${r.errors}  late ${r.late ?? 0}` +
  `  loadgen ${(((r.cpuSeconds ?? NaN) / r.sent) * 1e6).toFixed(0)} µs/req`;

async function main() {
  const loadgen = loadgenBinary(); // built before anything starts (first run or a changed source)
  console.log(
    `gateway benchmark: ${seconds} s per run, ${rate} req/s, LOG_LEVEL=${logLevel}, gateway NODE_OPTIONS=${gatewayNodeOptions}; ` +
      `load from the Go generator ${basename(dirname(loadgen))} (GOMAXPROCS=${loadgenThreads}); ` +
      (pinned ? 'proxies pinned to CPU 1, service and generator to CPU 0' : 'no CPU pinning'),
  );
  const infra = await startInfra();
  const stops: Array<() => Promise<unknown>> = [() => infra.dispose()];
  try {
    const auth = await startServiceProcess('auth', {
      ...infra.env,
      SIGNUP_ENABLED: 'true',
      PASSWORD_SCRYPT_N: '1024',
    });
    stops.unshift(() => auth.stop());
    const echo = await startLogged('echo', 'bench/gateway/echo-service.ts', {
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
      LOG_LEVEL: logLevel,
    });
    stops.unshift(() => echo.stop().then(() => rmSync(echo.logFile, { force: true })));
    const echoPort = echo.port;
    const gateway = await startLogged('gateway', 'services/gateway/src/main.ts', {
      ...infra.env,
      AUTH_URL: auth.url,
      WORKFLOW_URL: echo.url,
      RATE_LIMIT_PLANS: 'pro=1000/60,enterprise=unlimited,bench=1000000000/60',
      LOG_LEVEL: logLevel,
      NODE_OPTIONS: gatewayNodeOptions,
    });
    stops.unshift(() => gateway.stop().then(() => rmSync(gateway.logFile, { force: true })));
    const nginx = await startNginx(echoPort);
    stops.unshift(() => nginx.process.stop().then(() => rmSync(nginx.dir, { recursive: true, force: true })));
    if (pinned) {
      // Each proxy (gateway, nginx) on a core of its own, as a production pod has one; the service
      // and the load generator share the other core. Unpinned, a proxy's requests wait whenever
      // the service, the generator and it want both cores at once, which is the machine's tail,
      // not the proxy's.
      pinToCpus(echo.pid, '0');
      pinToCpus(gateway.pid, '1');
      for (const pid of [nginx.process.child.pid!, ...childrenOf(nginx.process.child.pid!)])
        pinToCpus(pid, '1');
      process.env.LOADGEN_CPUS = '0';
    }

    // An organization on a plan with a finite but huge limit, so the limiter's path is measured.
    const email = uniqueEmail('bench');
    const signup = await http('POST', `${gateway.url}/api/v1/auth/signup`, {
      body: { organizationName: 'Bench', email, password: 'correct horse battery' },
    });
    const db = await connectMongo(infra.mongo.url, 'auth', createLogger('bench', 'silent'));
    await organizationModel(db).updateOne({ _id: signup.body.organization.id }, { $set: { plan: 'bench' } });
    await db.close();
    const login = await http('POST', `${gateway.url}/api/v1/auth/login`, {
      body: { email, password: 'correct horse battery' },
    });
    const bearer = { authorization: `Bearer ${login.body.accessToken}` };
    const internal = {
      'x-internal-token': await signInternalToken(
        TEST_INTERNAL_SECRET,
        { orgId: signup.body.organization.id, userId: signup.body.user.id, role: 'owner', plan: 'bench' },
        3600,
      ),
    };
    const targets = [
      { name: 'direct ', url: `http://127.0.0.1:${echoPort}${ECHO_PATH}`, headers: internal },
      { name: 'nginx  ', url: `${nginx.url}${ECHO_PATH}`, headers: internal },
      { name: 'gateway', url: `${gateway.url}${ECHO_PATH}`, headers: bearer },
    ];
    for (const t of targets) {
      const check = await http('GET', t.url, { headers: t.headers });
      if (check.status !== 200) throw new Error(`${t.name.trim()} answered ${check.status}: ${check.text}`);
      await closedLoop(t.url, t.headers, 16, 2); // warm-up (the services' JIT)
    }

    console.log(
      `\nfixed arrival rate ${rate} req/s, ${rounds} rounds of ${seconds} s per path, interleaved ` +
        `(load average ${loadavg()[0]!.toFixed(2)})`,
    );
    // The paths take turns, so a burst of noise from the (virtual) machine falls on each of them
    // alike; each figure below is the median of the rounds, which one bad slice cannot move.
    const fixed: Record<string, LoadResult[]> = {};
    for (let round = 1; round <= rounds; round++) {
      for (const t of targets) {
        const r = await fixedRate(t.url, t.headers, rate, seconds);
        (fixed[t.name] ??= []).push(r);
        console.log(`  round ${round}  ${t.name}  ${fmt(r)}`);
      }
    }
    const med = (name: string, key: 'p50' | 'p99') => median(fixed[name]!.map((r) => r[key]));
    for (const t of targets) {
      console.log(
        `  median of ${rounds}  ${t.name}  p50 ${med(t.name, 'p50').toFixed(2)} ms  p99 ${med(t.name, 'p99').toFixed(2)} ms`,
      );
    }
    const adds = (name: string, key: 'p50' | 'p99') =>
      median(fixed[name]!.map((r, i) => r[key] - fixed['direct ']![i]![key]));
    console.log(
      `  gateway adds (median of per-round differences) p50 ${adds('gateway', 'p50').toFixed(2)} ms, ` +
        `p99 ${adds('gateway', 'p99').toFixed(2)} ms  (nginx adds p50 ${adds('nginx  ', 'p50').toFixed(2)} ms, ` +
        `p99 ${adds('nginx  ', 'p99').toFixed(2)} ms)`,
    );

    // CPU time per request of each process on the path: it does not depend on what else runs on
    // the machine (wall-clock figures do), and 1 / (gateway CPU per request) is its req/s per core.
    console.log(`\nclosed loop, 32 concurrent clients, ${seconds} s each; CPU time per request by process`);
    const nginxPids = [nginx.process.child.pid!, ...childrenOf(nginx.process.child.pid!)];
    const processes = (name: string) =>
      name === 'gateway'
        ? { gateway: [gateway.pid], service: [echo.pid] }
        : name === 'nginx'
          ? { nginx: nginxPids, service: [echo.pid] }
          : { service: [echo.pid] };
    for (const t of targets) {
      const watched = processes(t.name.trim());
      const before = Object.fromEntries(Object.entries(watched).map(([k, pids]) => [k, cpuOf(pids)]));
      const r = await closedLoop(t.url, t.headers, 32, seconds);
      const perRequest = Object.entries(watched)
        .map(([k, pids]) => `${k} ${(((cpuOf(pids) - before[k]!) / r.ok) * 1e6).toFixed(0)} µs`)
        .join(', ');
      console.log(`  ${t.name}  ${fmt(r)}  [${perRequest}]`);
    }

    const sustained = Number(process.env.BENCH_SUSTAIN_RATE ?? 2500);
    const pid = gateway.pid;
    const cpu0 = cpuSeconds(pid);
    const s = await fixedRate(targets[2]!.url, bearer, sustained, seconds, 128);
    const cores = (cpuSeconds(pid) - cpu0) / s.seconds;
    console.log(
      `\ngateway at a fixed ${sustained} req/s: ${fmt(s)}  gateway CPU ${(cores * 100).toFixed(0)}% of a core`,
    );
    console.log(
      `load average at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (2 cores)`,
    );
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
  }
}

await main();
process.exit(0);
