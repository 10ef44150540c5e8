import { destination as pinoDestination, pino, type Logger } from 'pino';

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
 * duration): none of those fields can hold a secret, so it skips the redaction pass. Its lines are
 * buffered (written in 4 KB blocks, and at least every second, and at exit) instead of one
 * synchronous write per request: measured with bench/gateway, that write was the gateway's p99 tail
 * and a fifth of its CPU per request. A crash can lose the last second of access lines, never an
 * error line (those go through `createLogger`, synchronously).
 */
export function createAccessLogger(service: string, level = 'info'): Logger {
  const destination = pinoDestination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), 1_000).unref();
  return pino(
    {
      level,
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
