import { Agent, request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { INTERNAL_TOKEN_HEADER, sendProblem, type Logger } from '@platform/kit';
import { ownsPath, type Upstream } from './upstreams.ts';

type GatewayRequest = Request & { internalToken?: string; requestId?: string };

/** The client address as this gateway determined it; services (auth's login limits) trust only this. */
const CLIENT_IP_HEADER = 'x-client-ip';

/** Hop-by-hop fields (RFC 9110 §7.6.1) are not forwarded in either direction. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function requestHeaders(req: GatewayRequest): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !hopByHop.has(name)) out[name] = value;
  }
  // Whatever a client sent under these names is dropped; only the gateway sets them.
  delete out[INTERNAL_TOKEN_HEADER];
  delete out[CLIENT_IP_HEADER];
  if (req.internalToken) out[INTERNAL_TOKEN_HEADER] = req.internalToken;
  if (req.ip) out[CLIENT_IP_HEADER] = req.ip;
  if (req.requestId) out['x-request-id'] = req.requestId;
  const remote = req.socket.remoteAddress ?? '';
  const forwarded = req.headers['x-forwarded-for'];
  out['x-forwarded-for'] = forwarded ? `${forwarded}, ${remote}` : remote;
  out['x-forwarded-proto'] ??= (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  if (req.headers.host) out['x-forwarded-host'] ??= req.headers.host;
  // A chunked body stays chunked: Node re-frames it when transfer-encoding is not copied.
  if (req.headers['transfer-encoding'] && !req.headers['content-length'])
    out['transfer-encoding'] = 'chunked';
  return out;
}

function copyResponseHeaders(from: IncomingHttpHeaders, res: Response) {
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && !hopByHop.has(name)) res.setHeader(name, value);
  }
}

/**
 * One proxy per service over keep-alive sockets, written on node:http (the gateway's hot path: a
 * generic proxy library cost noticeably more CPU per request). The literal `/sessions…` paths of
 * the specification are rewritten to `/api/v1/sessions…`. The internal identity token set by the
 * guards is attached and a client's copy dropped; so is a client's `X-Client-Ip`, replaced by the
 * address the gateway saw. Bodies stream through both ways (uploads, SSE). A refused connection is
 * a 503, an upstream slower than the timeout a 504, both as problem+json.
 */
export function proxyTo(
  upstream: Upstream,
  options: { timeoutMs: number; maxSockets: number; logger: Logger },
): RequestHandler {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets, keepAliveMsecs: 10_000 });
  const target = new URL(upstream.url);
  const isSessionAlias = (path: string) => upstream.service === 'session' && /^\/sessions(\/|$)/.test(path);
  return (req, res, next) => {
    const r = req as GatewayRequest;
    const alias = isSessionAlias(req.path);
    if (!alias && !ownsPath(upstream, req.path)) return next();
    let timedOut = false;
    const upstreamReq = request({
      agent,
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: alias ? `/api/v1${req.url}` : req.url,
      headers: requestHeaders(r),
    });
    upstreamReq.setTimeout(options.timeoutMs, () => {
      timedOut = true;
      upstreamReq.destroy(new Error('upstream timeout'));
    });
    upstreamReq.on('response', (upstreamRes) => {
      copyResponseHeaders(upstreamRes.headers, res);
      res.writeHead(upstreamRes.statusCode ?? 502);
      upstreamRes.pipe(res);
      upstreamRes.on('error', () => res.destroy());
    });
    upstreamReq.on('error', (err) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (timedOut) {
        sendProblem(res, 504, 'Upstream timeout', `The ${upstream.service} service did not answer in time`);
        return;
      }
      if (res.destroyed || req.socket.destroyed) return; // the client went away first
      options.logger.warn({ service: upstream.service, err: err.message }, 'upstream unavailable');
      res.setHeader('Retry-After', '5');
      sendProblem(
        res,
        503,
        'Service unavailable',
        `The ${upstream.service} service is unavailable; retry later`,
      );
    });
    // A client that goes away cancels the upstream request (and frees its socket).
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    req.pipe(upstreamReq);
  };
}
