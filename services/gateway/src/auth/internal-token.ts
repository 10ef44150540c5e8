import type { RequestHandler } from 'express';
import { signInternalToken } from '@platform/kit';
import type { GatewayRequest } from './authenticate.ts';

/**
 * Signs the verified identity (with the request id) into the short-lived internal token that the
 * proxy sends to the service; runs after the rate limiter so refused requests cost no signature.
 */
export function attachInternalToken(secret: string, ttlSeconds: number): RequestHandler {
  return async (req, res, next) => {
    const r = req as GatewayRequest;
    if (!r.identity) return next();
    try {
      r.internalToken = await signInternalToken(
        secret,
        { ...r.identity, requestId: String(res.locals.requestId) },
        ttlSeconds,
      );
      next();
    } catch (err) {
      next(err);
    }
  };
}
