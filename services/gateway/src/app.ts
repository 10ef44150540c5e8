import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import type { Readiness } from '@platform/contracts';
import { problemHandler, requestContext, sendProblem, type Logger } from '@platform/kit';
import { bodyLimit } from './body-limit.ts';
import { cors } from './cors.ts';
import { mountDocs } from './docs.ts';
import { proxyTo } from './proxy.ts';
import type { Upstream } from './upstreams.ts';

export interface GatewayAppOptions {
  logger: Logger;
  upstreams: Upstream[];
  readiness: () => Promise<Readiness>;
  corsOrigins: string;
  bodyLimit: string;
  upstreamTimeoutMs: number;
  upstreamMaxSockets: number;
  /** Identity and rate-limit middleware run before any proxied request. */
  guards?: RequestHandler[];
  /** express `trust proxy`: whose X-Forwarded-For gives the client address. */
  trustProxy?: string;
}

/**
 * The gateway's express app (not listening): request id, security headers, CORS, health, the API
 * document, body limit, guards (authentication, rate limits), then a proxy per service. It never
 * parses bodies: they stream through to the owning service.
 */
export function buildGatewayApp(options: GatewayAppOptions) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (options.trustProxy)
    app.set(
      'trust proxy',
      options.trustProxy.split(',').map((s) => s.trim()),
    );
  app.use(requestContext(options.logger));
  app.use((req, res, next) => {
    (req as typeof req & { requestId?: string }).requestId = String(res.locals.requestId);
    next();
  });
  app.use(helmet({ contentSecurityPolicy: { directives: { 'script-src': ["'none'"] } } }));
  app.use(cors(options.corsOrigins));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'alive' });
  });
  app.get('/readyz', async (_req, res) => {
    const readiness = await options.readiness();
    res.status(readiness.status === 'ready' ? 200 : 503).json(readiness);
  });
  mountDocs(app);
  app.use(bodyLimit(options.bodyLimit));
  for (const guard of options.guards ?? []) app.use(guard);
  for (const upstream of options.upstreams) {
    app.use(
      proxyTo(upstream, {
        timeoutMs: options.upstreamTimeoutMs,
        maxSockets: options.upstreamMaxSockets,
        logger: options.logger,
      }),
    );
  }
  app.use((req, res) => {
    sendProblem(res, 404, 'Not found', `No route for ${req.method} ${req.path}`);
  });
  app.use(problemHandler(options.logger));
  return app;
}
