import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Response } from 'express';
import type { Problem } from '@platform/contracts';
import type { Logger } from '../logger.ts';
import { AppError, isDependencyFailure, UnavailableError } from '../errors.ts';

const problemBase = 'https://docs.platform.example/problems/';

const typeByStatus: Record<number, string> = {
  400: 'validation-error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  409: 'conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  429: 'quota-exceeded',
  500: 'internal-error',
  502: 'bad-gateway',
  503: 'service-unavailable',
  504: 'gateway-timeout',
};

export function sendProblem(
  res: Response,
  status: number,
  title: string,
  detail?: string,
  extra: Partial<Problem> & { typeName?: string } = {},
) {
  writeProblem(res, status, title, detail, extra, res.locals.requestId as string | undefined);
}

/**
 * The problem+json answer on a plain node:http response (the gateway's hot path has no express);
 * `sendProblem` is this with the request id express keeps in `res.locals`.
 */
export function writeProblem(
  res: ServerResponse,
  status: number,
  title: string,
  detail?: string,
  extra: Partial<Problem> & { typeName?: string } = {},
  requestId?: string,
) {
  const { typeName, ...rest } = extra;
  const body: Problem = {
    type: problemBase + (typeName ?? typeByStatus[status] ?? 'error'),
    title,
    status,
    ...(detail ? { detail } : {}),
    ...(requestId ? { requestId: String(requestId) } : {}),
    ...rest,
  };
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** body-parser's own errors (malformed JSON, too large, bad charset) → 4xx problems. */
function fromBodyParser(err: { type?: string; status?: number }): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError(400, 'validation', 'Malformed JSON', 'The request body is not valid JSON', {
        type: 'malformed-json',
      });
    case 'entity.too.large':
      return new AppError(413, 'validation', 'Payload too large', 'The request body is larger than allowed');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'validation', 'Unsupported media type', 'Send JSON encoded as UTF-8');
    default:
      return undefined;
  }
}

/** The one place where errors become responses. Unknown errors are logged and answered as 500. */
export function problemHandler(logger: Logger): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const log = (res.locals.log as Logger | undefined) ?? logger;
    answerError(res, err, log, res.locals.requestId as string | undefined);
  };
}

/** An error as a problem+json answer on any node:http response (express or not). */
export function answerError(res: ServerResponse, err: unknown, log: Logger, requestId?: string) {
  let appError = err instanceof AppError ? err : fromBodyParser(err as { type?: string });
  if (!appError && isDependencyFailure(err)) {
    const e = err as Error;
    log.warn({ err: { name: e.name, message: e.message } }, 'dependency unavailable');
    appError = new UnavailableError();
  }
  if (res.headersSent) {
    log.error({ err }, 'error after the response started');
    res.destroy();
    return;
  }
  if (!appError) {
    log.error({ err }, 'unhandled error');
    writeProblem(
      res,
      500,
      'Internal error',
      'Something went wrong on our side; the request id helps support',
      {},
      requestId,
    );
    return;
  }
  for (const [name, value] of Object.entries(appError.extra.headers ?? {})) res.setHeader(name, value);
  writeProblem(
    res,
    appError.status,
    appError.title,
    appError.message,
    {
      ...(appError.extra.errors ? { errors: appError.extra.errors } : {}),
      ...(appError.extra.type ? { typeName: appError.extra.type } : {}),
    },
    requestId,
  );
}
