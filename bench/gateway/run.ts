// Gateway benchmark: `node --import tsx bench/gateway/run.ts` (needs Debian's nginx:
// `apt-get install -y nginx-light`). One run on this machine measures an authenticated GET
//   direct   client → service (with an internal token, as the gateway would send it)
//   nginx    client → nginx → service
//   gateway  client → gateway (access JWT, revocations, rate limit, internal token) → service
// at a fixed arrival rate of 1,000 requests/s (p50/p99, keep-alive), then the most each path
// sustains with 32 concurrent clients, and the gateway's CPU time per request (requests/s per core).
// Env: BENCH_SECONDS (15), BENCH_RATE (1000), LOG_LEVEL (info, as in production).
import { readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { ECHO_PATH } from './echo-service.ts';
import { closedLoop, fixedRate, type LoadResult } from './load.ts';
import { startNginx } from './nginx.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const rate = Number(process.env.BENCH_RATE ?? 1000);
const logLevel = process.env.LOG_LEVEL ?? 'info';

/** utime + stime of a process in seconds (Linux /proc). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
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
const childrenOf = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

const fmt = (r: LoadResult) =>
  `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p90 ${r.p90
    .toFixed(2)
    .padStart(
      6,
    )} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms  max ${r.max.toFixed(1).padStart(6)} ms  errors ${r.errors}`;

async function main() {
  console.log(`gateway benchmark: ${seconds} s per run, ${rate} req/s, LOG_LEVEL=${logLevel}`);
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
    stops.unshift(() => echo.stop());
    const echoPort = echo.port;
    const gateway = await startLogged('gateway', 'services/gateway/src/main.ts', {
      ...infra.env,
      AUTH_URL: auth.url,
      WORKFLOW_URL: echo.url,
      RATE_LIMIT_PLANS: 'pro=1000/60,enterprise=unlimited,bench=1000000000/60',
      LOG_LEVEL: logLevel,
    });
    stops.unshift(() => gateway.stop());
    const nginx = await startNginx(echoPort);
    stops.unshift(() => nginx.process.stop());

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
      await closedLoop(t.url, t.headers, 16, 2); // warm-up (JIT, sockets)
    }

    console.log(
      `\nfixed arrival rate ${rate} req/s, ${seconds} s each (load average ${loadavg()[0]!.toFixed(2)})`,
    );
    const fixed: Record<string, LoadResult> = {};
    for (const t of targets) {
      fixed[t.name] = await fixedRate(t.url, t.headers, rate, seconds);
      console.log(`  ${t.name}  ${fmt(fixed[t.name]!)}`);
    }
    const d = fixed['direct ']!;
    const g = fixed['gateway']!;
    const n = fixed['nginx  ']!;
    console.log(
      `  gateway adds p50 ${(g.p50 - d.p50).toFixed(2)} ms, p99 ${(g.p99 - d.p99).toFixed(2)} ms` +
        `  (nginx adds p50 ${(n.p50 - d.p50).toFixed(2)} ms, p99 ${(n.p99 - d.p99).toFixed(2)} ms)`,
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
