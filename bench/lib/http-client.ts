// A lean JSON client for benchmarks: node:http over keep-alive sockets. fetch (undici's web
// streams, Request/Response objects) cost the executions benchmark about twice the CPU per call,
// and a benchmark's own CPU is taken from the processes it measures on a 2-core machine.
import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 512 });

export interface JsonAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export function jsonRequest(
  method: string,
  url: string,
  options: { token?: string; body?: unknown } = {},
): Promise<JsonAnswer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: text });
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
