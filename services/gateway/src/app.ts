import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express from 'express';
import helmet from 'helmet';
import type { Readiness } from '@platform/contracts';
import { problemHandler, requestContext, sendProblem, type Logger } from '@platform/kit';
import { apiLane } from './api-lane.ts';
import { cors } from './cors.ts';
import { mountDocs } from './docs.ts';
import type { Guard } from './exchange.ts';
import { helmetOptions, securityHeaders } from './security-headers.ts';
import type { Upstream } from './upstreams.ts';

export interface GatewayAppOptions {
  logger: Logger;
  /** Access lines of the hot path; defaults to `logger`. */
  accessLogger?: Logger;
  upstreams: Upstream[];
  readiness: () => Promise<Readiness>;
  corsOrigins: string;
  bodyLimit: string;
  upstreamTimeoutMs: number;
  upstreamMaxSockets: number;
  /** Identity and rate-limit steps run before any proxied request. */
  guards?: Guard[];
  /** Whose X-Forwarded-For gives the client address (express `trust proxy` syntax). */
  trustProxy?: string;
}

/**
 * The gateway's request listener (not listening). Requests for a service's paths take the hot
 * path (api-lane.ts: request id, security headers, CORS, body limit, guards, proxy; it never
 * parses bodies, they stream through). Everything else goes to a small express app: health, the
 * API document, CORS preflights elsewhere, and the 404 problem.
 */
export function buildGatewayApp(options: GatewayAppOptions): RequestListener {
  const accessLogger = options.accessLogger ?? options.logger;
  const lane = apiLane({
    logger: options.logger,
    accessLogger,
    upstreams: options.upstreams,
    corsOrigins: options.corsOrigins,
    bodyLimit: options.bodyLimit,
    upstreamTimeoutMs: options.upstreamTimeoutMs,
    upstreamMaxSockets: options.upstreamMaxSockets,
    guards: options.guards ?? [],
    trustProxy: options.trustProxy,
    securityHeaders: securityHeaders(),
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.trustProxy)
    app.set(
      'trust proxy',
      options.trustProxy.split(',').map((s) => s.trim()),
    );
  app.use(requestContext(options.logger, accessLogger));
  app.use(helmet(helmetOptions));
  const preflight = cors(options.corsOrigins);
  app.use((req, res, next) => {
    if (!preflight(req, res)) next();
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'alive' });
  });
  app.get('/readyz', async (_req, res) => {
    const readiness = await options.readiness();
    res.status(readiness.status === 'ready' ? 200 : 503).json(readiness);
  });
  mountDocs(app);
  app.use((req, res) => {
    sendProblem(res, 404, 'Not found', `No route for ${req.method} ${req.path}`);
  });
  app.use(problemHandler(options.logger));
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!lane(req, res)) void app(req, res);
  };
}
