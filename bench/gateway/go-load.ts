// The benchmark's load generator: bench/gateway/loadgen (Go, standard library), built once per
// change of its source by scripts/infra/ensure-loadgen.sh and run as its own process, so the load
// costs a fraction of what a Node generator costs and no garbage collection of ours shows up in the
// latencies. Fixed rate is open loop (requests leave when due, whatever happened to earlier ones;
// `late` counts those that left more than 1 ms after their time); closed loop is N clients each
// waiting for its answer. Latency runs from the request's send to the last byte of the answer.
// LOADGEN_GOMAXPROCS (default 1: on a 2-core machine one thread handles thousands of requests per
// second and leaves the other core to the processes being measured).
import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export interface LoadResult {
  sent: number;
  ok: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Requests sent more than 1 ms after they were due (fixed rate: the load was not what it claims). */
  late?: number;
  /** The generator's own CPU time (user + system) over the counted window. */
  cpuSeconds?: number;
}

const ensureScript = fileURLToPath(new URL('../../scripts/infra/ensure-loadgen.sh', import.meta.url));
const run = promisify(execFile);
let binary: string | undefined;

/** Path of the generator's binary, building it on the first call (progress on stderr). */
export function loadgenBinary(): string {
  binary ??= execFileSync('bash', [ensureScript], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return binary;
}

export const loadgenThreads = process.env.LOADGEN_GOMAXPROCS ?? '1';

async function loadgen(
  args: string[],
  url: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<LoadResult> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-header', `${name}: ${value}`]);
  const argv = ['-url', url, '-duration', String(seconds), ...args, ...headerArgs];
  // LOADGEN_CPUS: the CPUs the generator may use (taskset), to keep it off the measured proxy's core.
  const cpus = process.env.LOADGEN_CPUS;
  const { stdout } = await run(
    cpus ? 'taskset' : loadgenBinary(),
    cpus ? ['-c', cpus, loadgenBinary(), ...argv] : argv,
    // A request times out after 10 s, so the run ends at most that long after its last send.
    { env: { ...process.env, GOMAXPROCS: loadgenThreads }, timeout: (seconds + 30) * 1000 },
  );
  const r = JSON.parse(stdout) as Record<keyof LoadResult, number | null>;
  const num = (v: number | null | undefined) => v ?? NaN; // null: no 2xx answer to take a latency from
  return {
    sent: num(r.sent),
    ok: num(r.ok),
    errors: num(r.errors),
    seconds: num(r.seconds),
    rps: num(r.rps),
    p50: num(r.p50),
    p90: num(r.p90),
    p99: num(r.p99),
    max: num(r.max),
    late: num(r.late),
    cpuSeconds: num(r.cpuSeconds),
  };
}

/** `rate` requests per second for `seconds`, open loop, over at most `sockets` keep-alive sockets. */
export function fixedRate(
  url: string,
  headers: Record<string, string>,
  rate: number,
  seconds: number,
  sockets = 64,
): Promise<LoadResult> {
  return loadgen(
    ['-mode', 'fixed', '-rate', String(rate), '-concurrency', String(sockets)],
    url,
    headers,
    seconds,
  );
}

/** `concurrency` clients, each sending its next request when the previous one is answered. */
export function closedLoop(
  url: string,
  headers: Record<string, string>,
  concurrency: number,
  seconds: number,
): Promise<LoadResult> {
  return loadgen(['-mode', 'closed', '-concurrency', String(concurrency)], url, headers, seconds);
}
