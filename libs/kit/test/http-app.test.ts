import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineRoute, PageQuery, z } from '@platform/contracts';
import { createHttpApp, createLogger, mountRoute, NotFoundError, signInternalToken } from '../src/index.ts';

// Kept free of @platform/testing (which depends on the kit) to avoid a package cycle.
const TEST_INTERNAL_SECRET = 'kit-test-internal-token-secret-0123456789';
async function internalHeaders(identity: { orgId: string }) {
  return {
    'x-internal-token': await signInternalToken(TEST_INTERNAL_SECRET, {
      role: 'owner',
      plan: 'pro',
      ...identity,
    }),
  };
}
async function http(
  method: string,
  url: string,
  options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method,
    headers,
    body: options.body !== undefined ? JSON.stringify(options.body) : options.rawBody,
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body };
}

const echo = defineRoute({
  service: 'workflow',
  method: 'post',
  path: '/test/echo/{id}',
  summary: 'echo',
  tag: 'test',
  access: 'public',
  params: z.object({ id: z.string().regex(/^[a-z]+$/) }),
  body: z.object({ name: z.string().min(1), count: z.number().int().optional() }).strict(),
  success: { status: 201, schema: z.object({ id: z.string(), name: z.string() }) },
});
const list = defineRoute({
  service: 'workflow',
  method: 'get',
  path: '/test/items',
  summary: 'list',
  tag: 'test',
  access: 'authenticated',
  query: PageQuery.extend({ status: z.enum(['a', 'b']).optional() }),
  success: { status: 200, schema: z.object({ orgId: z.string(), pageSize: z.number() }) },
});
const missing = defineRoute({
  service: 'workflow',
  method: 'get',
  path: '/test/missing',
  summary: 'always 404',
  tag: 'test',
  access: 'public',
  success: { status: 200 },
});

describe('kit http app', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    const app = createHttpApp({
      logger: createLogger('test', 'silent'),
      bodyLimit: '1kb',
      routes: (a) => {
        mountRoute(a, echo, TEST_INTERNAL_SECRET, ({ params, body }) => ({ id: params.id, name: body.name }));
        mountRoute(a, list, TEST_INTERNAL_SECRET, ({ identity, query }) => ({
          orgId: identity.orgId,
          pageSize: query.pageSize,
        }));
        mountRoute(a, missing, TEST_INTERNAL_SECRET, () => {
          throw new NotFoundError('nothing here');
        });
      },
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const expectProblem = (res: { status: number; headers: Headers; body: any }, status: number) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ status, type: expect.any(String), title: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  };

  it('answers a valid request with the route status and a request id', async () => {
    const res = await http('POST', `${base}/test/echo/abc`, { body: { name: 'x' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: 'abc', name: 'x' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('keeps a well-formed X-Request-Id from the caller', async () => {
    const res = await http('POST', `${base}/test/echo/abc`, {
      body: { name: 'x' },
      headers: { 'x-request-id': 'req-123' },
    });
    expect(res.headers.get('x-request-id')).toBe('req-123');
  });

  it('malformed JSON → 400 problem', async () => {
    const res = await http('POST', `${base}/test/echo/abc`, {
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400);
    expect(res.body.title).toBe('Malformed JSON');
  });

  it('wrong content type → 415 problem', async () => {
    const res = await http('POST', `${base}/test/echo/abc`, {
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(res, 415);
  });

  it('oversized body → 413 problem', async () => {
    const res = await http('POST', `${base}/test/echo/abc`, { body: { name: 'x'.repeat(5000) } });
    expectProblem(res, 413);
  });

  it('invalid fields → 400 naming each field', async () => {
    const res = await http('POST', `${base}/test/echo/ABC`, { body: { name: '', count: 1.5, extra: true } });
    expectProblem(res, 400);
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['count', 'extra', 'id', 'name']);
  });

  it('unknown and operator-looking query parameters → 400', async () => {
    const headers = await internalHeaders({ orgId: 'org1' });
    const res = await http('GET', `${base}/test/items?status[$ne]=x`, { headers });
    expectProblem(res, 400);
    expect(res.body.errors[0]).toMatchObject({ field: 'status[$ne]', location: 'query' });
    const bad = await http('GET', `${base}/test/items?pageSize=500&status=c`, { headers });
    expectProblem(bad, 400);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['pageSize', 'status']);
  });

  it('authenticated routes need the internal token, and read the identity from it', async () => {
    expectProblem(await http('GET', `${base}/test/items`), 401);
    expectProblem(
      await http('GET', `${base}/test/items`, { headers: { 'x-internal-token': 'forged' } }),
      401,
    );
    const ok = await http('GET', `${base}/test/items?pageSize=10`, {
      headers: await internalHeaders({ orgId: 'org1' }),
    });
    expect(ok.body).toEqual({ orgId: 'org1', pageSize: 10 });
  });

  it('typed errors and unknown routes become problems', async () => {
    expectProblem(await http('GET', `${base}/test/missing`), 404);
    expectProblem(await http('GET', `${base}/nope`), 404);
  });
});
