import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '@platform/kit';
import { http } from '@platform/testing';
import { buildGatewayApp } from '../src/app.ts';

/** A pino logger whose lines are kept in memory, to see which logger wrote what. */
function captured(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink) as unknown as Logger, lines };
}

/**
 * The hot path writes its one line per request through the access logger (buffered, no redaction
 * pass), never through the service logger: that synchronous write was the gateway's latency tail.
 */
describe('gateway access lines', () => {
  let upstream: Server;
  let gateway: Server;
  let url: string;
  const service = captured();
  const access = captured();

  beforeAll(async () => {
    upstream = createServer((_req, res) => res.end('{"ok":true}')).listen(0, '127.0.0.1');
    await new Promise((r) => upstream.once('listening', r));
    const app = buildGatewayApp({
      logger: service.logger,
      accessLogger: access.logger,
      upstreams: [
        {
          service: 'workflow',
          url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
          prefixes: ['/api/v1/workflows'],
        },
      ],
      readiness: async () => ({ status: 'ready', checks: {} }) as never,
      corsOrigins: '',
      bodyLimit: '1kb',
      upstreamTimeoutMs: 1_000,
      upstreamMaxSockets: 4,
    });
    gateway = createServer(app).listen(0, '127.0.0.1');
    await new Promise((r) => gateway.once('listening', r));
    url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    gateway?.closeAllConnections();
    gateway?.close();
    upstream?.closeAllConnections();
    upstream?.close();
  });

  it('logs a proxied request once, on the access logger, with its id and without credentials', async () => {
    const res = await http('GET', `${url}/api/v1/workflows?page=2`, {
      headers: { authorization: 'Bearer very-secret-token', 'x-request-id': 'req-access-1' },
    });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    const line = access.lines.find((l) => l.requestId === 'req-access-1');
    expect(line).toMatchObject({ msg: 'request', method: 'GET', path: '/api/v1/workflows', status: 200 });
    expect(typeof line!.ms).toBe('number');
    expect(service.lines.filter((l) => l.requestId === 'req-access-1')).toEqual([]);
    expect(JSON.stringify(access.lines)).not.toContain('very-secret-token');
  });
});
