import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths that may hold secrets anywhere in a log object; pino replaces them with [redacted]. */
const redact = [
  'password',
  'token',
  'secret',
  'apiKey',
  'accessToken',
  'refreshToken',
  'credentials',
  'authorization',
  '*.password',
  '*.token',
  '*.secret',
  '*.apiKey',
  '*.accessToken',
  '*.refreshToken',
  '*.credentials',
  '*.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-internal-token"]',
  'headers.authorization',
  'headers["x-internal-token"]',
];

export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    redact: { paths: redact, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}

/**
 * A logger for fixed-shape access lines only (request id, method, path without its query, status,
 * duration): none of those fields can hold a secret, so it skips the redaction pass, which costs a
 * noticeable share of the gateway's CPU per request. Everything else logs through `createLogger`.
 */
export function createAccessLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
