import type { IncomingMessage, ServerResponse } from 'node:http';

const exposed =
  'X-Request-Id, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Content-Disposition';

/**
 * CORS for browser clients (the dashboard and customers' front ends). `apply` sets the response
 * fields for an allowed origin and answers a preflight itself (returns true when it did).
 */
export function cors(originsSetting: string) {
  const any = originsSetting.trim() === '*';
  const allowed = new Set(
    originsSetting
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  );
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin;
    if (!origin || !(any || allowed.has(origin))) return false;
    res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', exposed);
    if (req.method !== 'OPTIONS' || !req.headers['access-control-request-method']) return false;
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
    res.setHeader(
      'Access-Control-Allow-Headers',
      'Authorization, Content-Type, Idempotency-Key, X-Request-Id, Last-Event-ID',
    );
    res.setHeader('Access-Control-Max-Age', '600');
    res.statusCode = 204;
    res.end();
    return true;
  };
}
