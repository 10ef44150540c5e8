import {
  Agent,
  request,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { INTERNAL_TOKEN_HEADER, writeProblem, type Logger } from '@platform/kit';
import type { Exchange } from './exchange.ts';
import type { Upstream } from './upstreams.ts';

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

function requestHeaders(x: Exchange): OutgoingHttpHeaders {
  const req = x.req;
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && !hopByHop.has(name)) out[name] = value;
  }
  // Whatever a client sent under these names is dropped; only the gateway sets them.
  delete out[INTERNAL_TOKEN_HEADER];
  delete out[CLIENT_IP_HEADER];
  if (x.internalToken) out[INTERNAL_TOKEN_HEADER] = x.internalToken;
  if (x.clientIp) out[CLIENT_IP_HEADER] = x.clientIp;
  out['x-request-id'] = x.requestId;
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

function copyResponseHeaders(from: IncomingHttpHeaders, res: ServerResponse) {
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
) {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets, keepAliveMsecs: 10_000 });
  const target = new URL(upstream.url);
  return (x: Exchange, alias: boolean) => {
    const { req, res } = x;
    let timedOut = false;
    const upstreamReq = request({
      agent,
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method: x.method,
      path: alias ? `/api/v1${req.url}` : req.url,
      headers: requestHeaders(x),
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
        const detail = `The ${upstream.service} service did not answer in time`;
        writeProblem(res, 504, 'Upstream timeout', detail, {}, x.requestId);
        return;
      }
      if (res.destroyed || req.socket.destroyed) return; // the client went away first
      options.logger.warn(
        { service: upstream.service, err: err.message, requestId: x.requestId },
        'upstream unavailable',
      );
      res.setHeader('Retry-After', '5');
      const detail = `The ${upstream.service} service is unavailable; retry later`;
      writeProblem(res, 503, 'Service unavailable', detail, {}, x.requestId);
    });
    // A client that goes away cancels the upstream request (and frees its socket).
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });
    // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 §6.3): most
    // reads. Ending the upstream request at once spares a pipe's listeners and buffers on them.
    const { 'content-length': length, 'transfer-encoding': encoding } = req.headers;
    if ((length === undefined || length === '0') && encoding === undefined) {
      upstreamReq.end();
      req.resume();
    } else {
      req.pipe(upstreamReq);
    }
  };
}
