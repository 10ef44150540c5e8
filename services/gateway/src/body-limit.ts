import type { RequestHandler } from 'express';
import { sendProblem } from '@platform/kit';

const units: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

export function parseSize(value: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(value.trim());
  if (!m) throw new Error(`not a size: ${value}`);
  return Math.floor(Number(m[1]) * units[(m[2] ?? 'b').toLowerCase()]!);
}

/**
 * Refuses bodies declared larger than the limit before they are proxied (the service enforces the
 * same limit on chunked bodies while reading them).
 */
export function bodyLimit(limit: string): RequestHandler {
  const max = parseSize(limit);
  return (req, res, next) => {
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > max) {
      res.setHeader('Connection', 'close');
      sendProblem(res, 413, 'Payload too large', `The body is larger than ${limit}`);
      return;
    }
    next();
  };
}
