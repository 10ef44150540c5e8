import type { RequestHandler } from 'express';

/** CORS for browser clients (the dashboard and customers' front ends); preflights answered here. */
export function cors(originsSetting: string): RequestHandler {
  const any = originsSetting.trim() === '*';
  const allowed = new Set(
    originsSetting
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  );
  return (req, res, next) => {
    const origin = req.header('origin');
    if (origin && (any || allowed.has(origin))) {
      res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader(
        'Access-Control-Expose-Headers',
        'X-Request-Id, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Content-Disposition',
      );
    }
    if (req.method === 'OPTIONS' && origin && req.header('access-control-request-method')) {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
      res.setHeader(
        'Access-Control-Allow-Headers',
        'Authorization, Content-Type, Idempotency-Key, X-Request-Id, Last-Event-ID',
      );
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
