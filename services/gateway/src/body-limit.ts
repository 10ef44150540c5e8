import { AppError } from '@platform/kit';
import type { Exchange, Guard } from './exchange.ts';

const units: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

export function parseSize(value: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(value.trim());
  if (!m) throw new Error(`not a size: ${value}`);
  return Math.floor(Number(m[1]) * units[(m[2] ?? 'b').toLowerCase()]!);
}

/**
 * Refuses bodies declared larger than the limit before they are proxied (the service enforces the
 * same limit on chunked bodies while reading them). The connection is closed after the answer: the
 * unread body would otherwise be taken for the next request.
 */
export function bodyLimit(limit: string): Guard {
  const max = parseSize(limit);
  return (x: Exchange) => {
    const length = Number(x.req.headers['content-length'] ?? 0);
    if (length > max) {
      x.res.setHeader('Connection', 'close');
      throw new AppError(413, 'validation', 'Payload too large', `The body is larger than ${limit}`);
    }
  };
}
