import { integrationRpc } from '@platform/contracts';
import { AppError, OutboundNetworkError, outboundFetch, rpcRequest } from '@platform/kit';
import { renderText, renderValue } from '../engine/expressions.ts';
import { StepFailure } from '../engine/step-failure.ts';
import { failureOfRemote, untilAborted } from './guards.ts';
import type { StepOf, StepResult, StepRunContext } from './types.ts';

interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (contentType && /\bjson\b/i.test(contentType) && text) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function failureOfOutbound(err: unknown): StepFailure {
  if (err instanceof StepFailure) return err;
  if (err instanceof OutboundNetworkError)
    return new StepFailure(err.code === 'timeout' ? 'timeout' : 'network', err.message);
  if (err instanceof AppError) {
    if (err.extra.type === 'address-not-allowed') return new StepFailure('address_not_allowed', err.message);
    return new StepFailure('invalid_settings', err.message);
  }
  return new StepFailure('network', (err as Error).message);
}

/** Direct call: SSRF-safe outboundFetch, the body read up to the step output limit. */
async function direct(
  ctx: StepRunContext,
  method: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<HttpAnswer> {
  const init: { method: string; headers: Record<string, string>; body?: string } = { method, headers };
  if (body !== undefined && method !== 'GET' && method !== 'HEAD') {
    const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
    if (typeof body === 'string') {
      init.body = body;
      if (!hasType) headers['content-type'] = 'text/plain; charset=utf-8';
    } else {
      init.body = JSON.stringify(body);
      if (!hasType) headers['content-type'] = 'application/json';
    }
  }
  const limit = ctx.deps.config.STEP_OUTPUT_LIMIT_BYTES;
  const res = await untilAborted(
    outboundFetch(url, init, {
      allowPrivateNetwork: ctx.deps.config.ALLOW_PRIVATE_NETWORK,
      timeoutMs: ctx.timeoutMs,
      maxResponseBytes: limit + 1,
    }).catch((err: unknown) => {
      throw failureOfOutbound(err);
    }),
    ctx.signal,
  );
  if (res.truncated)
    throw new StepFailure(
      'output_too_large',
      `The response body is larger than the step output limit (${limit} bytes)`,
    );
  return { status: res.status, headers: res.headers, body: parseBody(res.body, res.headers['content-type']) };
}

/** Through a connection of the `http` integration: its credentials are added by that service. */
async function viaConnection(
  ctx: StepRunContext,
  step: StepOf<'http'>,
  method: string,
  path: string,
  headers: Record<string, string>,
  query: Record<string, string> | undefined,
  body: unknown,
): Promise<HttpAnswer> {
  const reply = await untilAborted(
    rpcRequest(
      ctx.deps.nc,
      integrationRpc.runAction,
      {
        orgId: ctx.execution.orgId,
        connectionId: step.settings.connectionId!,
        action: 'request',
        input: { method, path, query, headers, body, throwOnHttpError: false },
        requestId: `${ctx.execution.id}:${step.id}:${ctx.attempt}`,
        timeoutMs: Math.min(ctx.timeoutMs, 300_000),
      },
      { timeoutMs: Math.min(ctx.timeoutMs, 300_000) + 1_000 },
    ).catch((err: unknown) => {
      throw failureOfRemote(err, 'The integration service');
    }),
    ctx.signal,
  );
  const out = reply.output as { status?: number; headers?: Record<string, string>; body?: unknown };
  return { status: out.status ?? 0, headers: out.headers ?? {}, body: out.body };
}

export async function runHttp(step: StepOf<'http'>, ctx: StepRunContext): Promise<StepResult> {
  const s = step.settings;
  const method = s.method;
  const target = await renderText(s.url, ctx.data);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(s.headers ?? {}))
    headers[name] = await renderText(value, ctx.data);
  let query: Record<string, string> | undefined;
  if (s.query) {
    query = {};
    for (const [name, value] of Object.entries(s.query)) query[name] = await renderText(value, ctx.data);
  }
  const body = s.body === undefined ? undefined : await renderValue(s.body, ctx.data);
  let answer: HttpAnswer;
  let shown: string;
  if (s.connectionId) {
    shown = `connection ${s.connectionId} ${target}`;
    answer = await viaConnection(ctx, step, method, target, headers, query, body);
  } else {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new StepFailure(
        'invalid_settings',
        `settings.url is not an absolute URL: ${target.slice(0, 200)}`,
      );
    }
    for (const [name, value] of Object.entries(query ?? {})) url.searchParams.append(name, value);
    // Query strings may carry tokens: logs show the address without them.
    shown = `${url.origin}${url.pathname}`;
    answer = await direct(ctx, method, url.href, headers, body);
  }
  ctx.log('info', `${method} ${shown} answered ${answer.status}`, { status: answer.status });
  if (s.failOnHttpError && (answer.status < 200 || answer.status >= 300)) {
    const retryable = answer.status >= 500 || answer.status === 408 || answer.status === 429;
    throw new StepFailure(
      retryable ? 'http_server_error' : 'http_client_error',
      `${method} ${shown} answered ${answer.status}`,
      answer.status,
    );
  }
  return { output: answer };
}
