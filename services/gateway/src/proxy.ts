import { Agent, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { INTERNAL_TOKEN_HEADER, sendProblem, type Logger } from '@platform/kit';
import { ownsPath, type Upstream } from './upstreams.ts';

type GatewayRequest = IncomingMessage & { timedOut?: boolean; internalToken?: string; requestId?: string };

/**
 * One proxy per service, with keep-alive sockets. The literal `/sessions…` paths of the specification
 * are rewritten to `/api/v1/sessions…`. The internal identity token set by the auth middleware is
 * attached, and anything a client sent under that header name is dropped. A refused connection is
 * a 503, an upstream slower than the timeout a 504, both as problem+json.
 */
export function proxyTo(
  upstream: Upstream,
  options: { timeoutMs: number; maxSockets: number; logger: Logger },
): RequestHandler {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets, keepAliveMsecs: 10_000 });
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: upstream.url,
    agent,
    xfwd: true,
    pathFilter: (path) =>
      ownsPath(upstream, path) || (upstream.service === 'session' && /^\/sessions(\/|$)/.test(path)),
    pathRewrite: (path) => (path.startsWith('/sessions') ? `/api/v1${path}` : path),
    on: {
      proxyReq: (proxyReq: ClientRequest, req: GatewayRequest) => {
        proxyReq.removeHeader(INTERNAL_TOKEN_HEADER);
        if (req.internalToken) proxyReq.setHeader(INTERNAL_TOKEN_HEADER, req.internalToken);
        if (req.requestId) proxyReq.setHeader('x-request-id', req.requestId);
        proxyReq.setTimeout(options.timeoutMs, () => {
          req.timedOut = true;
          proxyReq.destroy(new Error('upstream timeout'));
        });
      },
      error: (err, req, res) => {
        const r = req as GatewayRequest;
        const response = res as Response;
        if (!('headersSent' in response) || response.headersSent) {
          (res as ServerResponse).destroy?.();
          return;
        }
        response.locals ??= {};
        response.locals.requestId ??= r.requestId;
        if (r.timedOut) {
          sendProblem(
            response,
            504,
            'Upstream timeout',
            `The ${upstream.service} service did not answer in time`,
          );
        } else {
          options.logger.warn(
            { service: upstream.service, err: (err as Error).message },
            'upstream unavailable',
          );
          response.setHeader('Retry-After', '5');
          sendProblem(
            response,
            503,
            'Service unavailable',
            `The ${upstream.service} service is unavailable; retry later`,
          );
        }
      },
    },
  });
}
