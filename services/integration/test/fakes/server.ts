import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small HTTP server for third-party fakes: each request is recorded (method, path, query, headers,
 * raw and parsed body) and answered by a handler that checks it the way the real API would.
 */
export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  raw: string;
  json: any;
  form: URLSearchParams;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  text?: string;
  /** Wait this long before answering (timeout tests). */
  delayMs?: number;
  /** Write the body yourself (server-sent events). */
  stream?: (res: ServerResponse) => Promise<void>;
}

export type FakeHandler = (req: FakeRequest) => FakeReply | undefined | Promise<FakeReply | undefined>;

export interface FakeServer {
  url: string;
  requests: FakeRequest[];
  close(): Promise<void>;
}

export async function startFake(handler: FakeHandler): Promise<FakeServer> {
  const requests: FakeRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://fake');
      let json: unknown;
      try {
        json = raw ? JSON.parse(raw) : undefined;
      } catch {
        json = undefined;
      }
      const fake: FakeRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        raw,
        json,
        form: new URLSearchParams(raw),
      };
      requests.push(fake);
      try {
        const reply = (await handler(fake)) ?? { status: 404, json: { error: 'no such route in the fake' } };
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        if (reply.stream) {
          res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
          await reply.stream(res);
          res.end();
          return;
        }
        const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
        res.writeHead(reply.status ?? 200, {
          'content-type': reply.json !== undefined ? 'application/json' : 'text/plain',
          ...reply.headers,
        });
        res.end(body);
      } catch (err) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`fake failed: ${(err as Error).message}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Routes by path prefix, so one fake server can stand for several third parties. */
export function byPrefix(routes: Record<string, FakeHandler>): FakeHandler {
  return (req) => {
    for (const [prefix, handler] of Object.entries(routes)) {
      if (req.path.startsWith(prefix)) return handler({ ...req, path: req.path.slice(prefix.length) || '/' });
    }
    return undefined;
  };
}

export function basicAuthOf(req: FakeRequest): { user: string; pass: string } | undefined {
  const header = String(req.headers.authorization ?? '');
  if (!header.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? undefined : { user: decoded.slice(0, i), pass: decoded.slice(i + 1) };
}
