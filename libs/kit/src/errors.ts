import type { FieldError, RpcErrorKind } from '@platform/contracts';

/**
 * The few typed errors of the platform. Domain code throws these; one middleware (http/problem.ts)
 * and the RPC helpers turn them into problem+json or typed RPC error replies.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly kind: RpcErrorKind,
    readonly title: string,
    message: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; type?: string } = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends AppError {
  constructor(errors: FieldError[], message = 'The request has invalid fields') {
    super(400, 'validation', 'Invalid request', message, { errors });
  }
}

export class NotFoundError extends AppError {
  constructor(message = 'The resource does not exist') {
    super(404, 'not_found', 'Not found', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'conflict', 'Conflict', message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Valid credentials are required', challenge = 'Bearer realm="api"') {
    super(401, 'unauthorized', 'Unauthorized', message, { headers: { 'WWW-Authenticate': challenge } });
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'Your role does not allow this') {
    super(403, 'forbidden', 'Forbidden', message);
  }
}

export class UnavailableError extends AppError {
  constructor(message = 'A dependency is unavailable, retry later', retryAfterSeconds = 5) {
    super(503, 'unavailable', 'Service unavailable', message, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

export class TimeoutError extends AppError {
  constructor(message = 'The operation timed out') {
    super(504, 'timeout', 'Timeout', message);
  }
}

export class TooManyRequestsError extends AppError {
  constructor(message: string, retryAfterSeconds: number, type = 'quota-exceeded') {
    super(429, 'unavailable', 'Too many requests', message, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
      type,
    });
  }
}

/** Errors raised outside our code that mean "a dependency is down", not "we have a bug". */
export function isDependencyFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const name = err.name ?? '';
  const code = (err as { code?: unknown }).code;
  return (
    /^Mongo(Network|ServerSelection|NotConnected|Topology)/.test(name) ||
    name === 'MongooseServerSelectionError' ||
    (name === 'MongooseError' && /buffering timed out|not connected/i.test(err.message)) ||
    code === 'CONNECTION_CLOSED' ||
    code === 'CONNECTION_DRAINING' ||
    code === 'DISCONNECT' ||
    code === '503' ||
    /no responders|connection closed|TIMEOUT/i.test(String(code ?? '')) ||
    /no responders/i.test(err.message)
  );
}
