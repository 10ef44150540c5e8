import express, { type RequestHandler } from 'express';
import { AppError } from '../errors.ts';

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * JSON bodies only: a body with another content type is a 415 before anything reads it; malformed
 * JSON and oversized bodies surface as body-parser errors that problemHandler maps to 400 and 413.
 */
export function jsonBody(limit: string): RequestHandler[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    if (!hasBody(req)) return next();
    if (!req.is(['application/json', 'application/*+json'])) {
      return next(
        new AppError(415, 'validation', 'Unsupported media type', 'Send the body as application/json', {
          type: 'unsupported-media-type',
        }),
      );
    }
    next();
  };
  return [
    requireJson,
    express.json({
      limit,
      strict: true,
      type: ['application/json', 'application/*+json'],
      // The exact bytes, for routes that check a signature of the body (inbound webhooks).
      verify: (req, _res, buf) => {
        (req as { rawBody?: Buffer }).rawBody = buf;
      },
    }),
  ];
}
