import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { createAccessLogger, type Logger } from '../logger.ts';

const validId = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when well-formed, else a new one. */
export function requestIdFrom(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && validId.test(incoming) ? incoming : randomUUID();
}

/**
 * Takes the caller's X-Request-Id (when well-formed) or makes one, echoes it, and gives the request a
 * child logger carrying it; logs one line per finished request through `access`, a buffered access
 * logger (see createAccessLogger: one synchronous write per request was a large share of a
 * service's CPU and of its latency tail). A process that has one already passes it.
 */
export function requestContext(
  logger: Logger,
  access: Logger = createAccessLogger(String(logger.bindings().service ?? 'service'), logger.level),
): RequestHandler {
  return (req, res, next) => {
    const requestId = requestIdFrom(req.headers['x-request-id']);
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const log = logger.child({ requestId });
    res.locals.log = log;
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      if (req.path === '/healthz' || req.path === '/readyz') return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      access.info(
        {
          requestId,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
        },
        'request',
      );
    });
    next();
  };
}
