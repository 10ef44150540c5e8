import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress, OutboundBlockedError, OutboundNetworkError, outboundFetch } from '../src/index.ts';

describe('outbound HTTP policy', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
      if (req.url === '/big') return void res.end('x'.repeat(10_000));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, auth: req.headers.authorization ?? null }));
    }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('classifies private, loopback, link-local and mapped addresses', () => {
    for (const a of [
      '10.1.2.3',
      '127.0.0.1',
      '169.254.169.254',
      '172.20.0.1',
      '192.168.1.1',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses loopback and localhost unless private networks are allowed', async () => {
    await expect(outboundFetch(`${base}/`, {}, { allowPrivateNetwork: false })).rejects.toBeInstanceOf(
      OutboundBlockedError,
    );
    await expect(
      outboundFetch('http://localhost:1/', {}, { allowPrivateNetwork: false }),
    ).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(
      outboundFetch('file:///etc/passwd', {}, { allowPrivateNetwork: true }),
    ).rejects.toMatchObject({ status: 400 });
    const ok = await outboundFetch(
      `${base}/`,
      { method: 'POST', headers: { authorization: 'Bearer t' } },
      { allowPrivateNetwork: true },
    );
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ method: 'POST', auth: 'Bearer t' });
  });

  it('times out and bounds the response body', async () => {
    await expect(
      outboundFetch(`${base}/slow`, {}, { allowPrivateNetwork: true, timeoutMs: 200 }),
    ).rejects.toBeInstanceOf(OutboundNetworkError);
    const big = await outboundFetch(`${base}/big`, {}, { allowPrivateNetwork: true, maxResponseBytes: 100 });
    expect(big.body.length).toBe(100);
    expect(big.truncated).toBe(true);
  });
});
