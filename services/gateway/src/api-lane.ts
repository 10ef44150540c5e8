import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import { answerError, requestIdFrom, writeProblem, type Logger } from '@platform/kit';
import { bodyLimit } from './body-limit.ts';
import { cors } from './cors.ts';
import type { Exchange, Guard } from './exchange.ts';
import { proxyTo } from './proxy.ts';
import { ownsPath, type Upstream } from './upstreams.ts';

export interface ApiLaneOptions {
  logger: Logger;
  /** One line per request (createAccessLogger: fixed fields, no redaction pass). */
  accessLogger: Logger;
  upstreams: Upstream[];
  corsOrigins: string;
  bodyLimit: string;
  upstreamTimeoutMs: number;
  upstreamMaxSockets: number;
  /** Identity and rate-limit steps, in order, before the proxy. */
  guards: Guard[];
  /** Whose X-Forwarded-For gives the client address (proxy-addr names: loopback, 10.0.0.0/8…). */
  trustProxy?: string;
  /** Response fields every answer carries (the security headers). */
  securityHeaders: Array<[string, string]>;
}

const sessionAlias = /^\/sessions(\/|$)/;
/** Served by the express app, without a token. */
const apiDocument = '/api/v1/openapi.json';
const isApiPath = (path: string) =>
  (path.startsWith('/api/') && path !== apiDocument) || sessionAlias.test(path);

/**
 * The gateway's hot path, on plain node:http: every request under `/api/` (and the
 * specification's literal `/sessions…` paths) goes request id → security headers → CORS → access
 * log → body limit → guards → proxy to the service owning the path (a 404 problem when none does,
 * after the guards, so unknown API paths need a token too). It returns false for anything else,
 * which the express app answers (health, readiness, the API document and pages, 404). Errors
 * become problem+json in kit's one place.
 */
export function apiLane(options: ApiLaneOptions) {
  const { logger, accessLogger } = options;
  const routes = options.upstreams.map((upstream) => ({
    upstream,
    proxy: proxyTo(upstream, {
      timeoutMs: options.upstreamTimeoutMs,
      maxSockets: options.upstreamMaxSockets,
      logger,
    }),
  }));
  const sessions = routes.find((r) => r.upstream.service === 'session');
  const trusted = options.trustProxy
    ? proxyaddr.compile(options.trustProxy.split(',').map((s) => s.trim()))
    : () => false;
  const preflight = cors(options.corsOrigins);
  const steps: Guard[] = [bodyLimit(options.bodyLimit), ...options.guards];

  const run = async (x: Exchange, route: (typeof routes)[number] | undefined, alias: boolean) => {
    try {
      for (const step of steps) {
        const pending = step(x);
        if (pending) await pending;
      }
    } catch (err) {
      answerError(x.res, err, logger.child({ requestId: x.requestId }), x.requestId);
      return;
    }
    if (route) route.proxy(x, alias);
    else writeProblem(x.res, 404, 'Not found', `No route for ${x.method} ${x.path}`, {}, x.requestId);
  };

  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (!isApiPath(path)) return false;
    const alias = sessions !== undefined && sessionAlias.test(path);
    const route = alias ? sessions : routes.find((r) => ownsPath(r.upstream, path));
    const started = performance.now();
    const x: Exchange = {
      req,
      res,
      method: req.method ?? 'GET',
      path,
      requestId: requestIdFrom(req.headers['x-request-id']),
      // Without X-Forwarded-For the peer is the client; proxy-addr (which parses addresses) is
      // needed only to decide how far to believe that field.
      clientIp: req.headers['x-forwarded-for'] ? proxyaddr(req, trusted) : (req.socket.remoteAddress ?? ''),
    };
    res.setHeader('X-Request-Id', x.requestId);
    for (const [name, value] of options.securityHeaders) res.setHeader(name, value);
    res.on('finish', () => {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      accessLogger.info(
        { requestId: x.requestId, method: x.method, path, status: res.statusCode, ms },
        'request',
      );
    });
    if (preflight(req, res)) return true;
    void run(x, route, alias);
    return true;
  };
}
