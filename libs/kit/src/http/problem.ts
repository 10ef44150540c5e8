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
  const { typeName, ...rest } = extra;
  const body: Problem = {
    type: problemBase + (typeName ?? typeByStatus[status] ?? 'error'),
    title,
    status,
    ...(detail ? { detail } : {}),
    ...(res.locals.requestId ? { requestId: String(res.locals.requestId) } : {}),
    ...rest,
  };
  res.status(status).type('application/problem+json').send(JSON.stringify(body));
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
  return (err, req, res, _next) => {
    const log = (res.locals.log as Logger | undefined) ?? logger;
    let appError = err instanceof AppError ? err : fromBodyParser(err);
    if (!appError && isDependencyFailure(err)) {
      log.warn({ err: { name: err.name, message: err.message } }, 'dependency unavailable');
      appError = new UnavailableError();
    }
    if (res.headersSent) {
      log.error({ err }, 'error after the response started');
      res.destroy();
      return;
    }
    if (!appError) {
      log.error({ err }, 'unhandled error');
      sendProblem(
        res,
        500,
        'Internal error',
        'Something went wrong on our side; the request id helps support',
      );
      return;
    }
    for (const [name, value] of Object.entries(appError.extra.headers ?? {})) res.setHeader(name, value);
    sendProblem(res, appError.status, appError.title, appError.message, {
      ...(appError.extra.errors ? { errors: appError.extra.errors } : {}),
      ...(appError.extra.type ? { typeName: appError.extra.type } : {}),
    });
  };
}
