import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Logger } from '../logger.ts';
import { evaluateReadiness, type ReadinessCheck } from '../health.ts';
import { jsonBody } from './body.ts';
import { problemHandler, sendProblem } from './problem.ts';
import { requestContext } from './request-context.ts';

export interface HttpAppOptions {
  logger: Logger;
  bodyLimit?: string;
  readiness?: ReadinessCheck[];
  /** Adds the service's routes. */
  routes: (app: Express) => void;
}

/**
 * The express app every service uses: request id and logger, security headers, JSON-only bodies with a
 * size limit, /healthz and /readyz, the service's routes, a 404 problem for anything else and the one
 * error handler. It does not listen, so tests can use it directly.
 */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(options.logger));
  app.use(helmet({ contentSecurityPolicy: false }));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'alive' });
  });
  app.get('/readyz', async (_req, res) => {
    const readiness = await evaluateReadiness(options.readiness ?? []);
    res.status(readiness.status === 'ready' ? 200 : 503).json(readiness);
  });
  app.use(jsonBody(options.bodyLimit ?? '1mb'));
  options.routes(app);
  app.use((req, res) => {
    sendProblem(res, 404, 'Not found', `No route for ${req.method} ${req.path}`);
  });
  app.use(problemHandler(options.logger));
  return app;
}
