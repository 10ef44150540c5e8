// A small load generator: keep-alive HTTP/1.1 sockets, either at a fixed arrival rate (open loop:
// requests leave on schedule whether or not earlier ones were answered, so a slow server cannot
// slow the offered load down and hide its queueing) or closed-loop with N concurrent clients to
// find the maximum throughput. Latency runs from the moment a request is written to its last byte.
import { Agent, request } from 'node:http';

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
}

function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summarize(latencies: number[], sent: number, errors: number, seconds: number): LoadResult {
  const sorted = latencies.sort((a, b) => a - b);
  return {
    sent,
    ok: latencies.length,
    errors,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
  };
}

function once(agent: Agent, url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** `rate` requests per second for `seconds` (sent in 1 ms ticks; a busy loop would steal a core). */
export async function fixedRate(
  target: string,
  headers: Record<string, string>,
  rate: number,
  seconds: number,
  sockets = 64,
): Promise<LoadResult> {
  const url = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const total = Math.round(rate * seconds);
  const start = performance.now();
  const inflight = new Set<Promise<void>>();
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - start) / 1000) * rate));
      while (sent < due) {
        sent++;
        const t = performance.now();
        const p = once(agent, url, headers)
          .then((status) => {
            if (status === 200) latencies.push(performance.now() - t);
            else errors++;
          })
          .catch(() => void errors++)
          .finally(() => inflight.delete(p));
        inflight.add(p);
      }
      if (sent >= total) done();
      else setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.all(inflight);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  return summarize(latencies, sent, errors, elapsed);
}

/** `concurrency` clients, each sending its next request when the previous one is answered. */
export async function closedLoop(
  target: string,
  headers: Record<string, string>,
  concurrency: number,
  seconds: number,
): Promise<LoadResult> {
  const url = new URL(target);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        sent++;
        try {
          if ((await once(agent, url, headers)) === 200) latencies.push(performance.now() - t);
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  return summarize(latencies, sent, errors, elapsed);
}
