import type { Express, NextFunction, Request, Response } from 'express';
import type { ZodType, z } from 'zod';
import { ZodObject } from 'zod';
import { toExpressPath, type FieldError, type Identity, type RouteDef } from '@platform/contracts';
import type { Logger } from '../logger.ts';
import { ValidationError } from '../errors.ts';
import { INTERNAL_TOKEN_HEADER, verifyInternalToken } from '../identity.ts';
import { toFieldErrors } from './validate.ts';

type Infer<T> = [NonNullable<T>] extends [ZodType] ? z.infer<NonNullable<T>> : undefined;

export interface RouteContext<P, Q, B, A> {
  params: P;
  query: Q;
  body: B;
  /** The verified caller; present on every authenticated route. */
  identity: A;
  log: Logger;
  requestId: string;
  req: Request;
  res: Response;
}

export type RouteHandler<D extends RouteDef> = (
  ctx: RouteContext<
    Infer<D['params']>,
    Infer<D['query']>,
    Infer<D['body']>,
    D['access'] extends 'authenticated' ? Identity : Identity | undefined
  >,
) => Promise<Infer<D['success']['schema']> | void> | Infer<D['success']['schema']> | void;

/** Query parameters nobody declared (including `status[$ne]`-style operators) are a 400. */
function strictQuery(schema: ZodType | undefined): ZodType | undefined {
  if (!schema) return undefined;
  return schema instanceof ZodObject ? schema.strict() : schema;
}

/**
 * Mounts one catalog route: verifies the internal identity token on authenticated routes, validates
 * path, query and body with the route's schemas (errors name each field), calls the handler and
 * answers its result as JSON with the route's success status. A handler that writes the response
 * itself (streams, redirects) returns nothing.
 */
export function mountRoute<D extends RouteDef>(
  app: Express,
  route: D,
  internalTokenSecret: string,
  handler: RouteHandler<D>,
): void {
  const query = strictQuery(route.query);
  const method = route.method;
  app[method](toExpressPath(route.path), async (req: Request, res: Response, next: NextFunction) => {
    try {
      const identity =
        route.access === 'authenticated'
          ? await verifyInternalToken(internalTokenSecret, req.header(INTERNAL_TOKEN_HEADER))
          : undefined;
      // Every part is checked before answering, so one 400 names all the bad fields at once.
      const errors: FieldError[] = [];
      const part = <T>(schema: ZodType<T> | undefined, input: unknown, location: FieldError['location']) => {
        if (!schema) return undefined;
        const result = schema.safeParse(input);
        if (result.success) return result.data;
        errors.push(...toFieldErrors(result.error.issues, location));
        return undefined;
      };
      const params = part(route.params, req.params, 'path');
      let parsedQuery: unknown;
      if (query) {
        parsedQuery = part(query, req.query, 'query');
      } else {
        for (const field of Object.keys(req.query as object)) {
          errors.push({ field, message: 'is not a known parameter', location: 'query' });
        }
      }
      const body = part(route.body, req.body ?? {}, 'body');
      if (errors.length > 0) throw new ValidationError(errors);
      const result = await handler({
        params,
        query: parsedQuery,
        body,
        identity,
        log: res.locals.log as Logger,
        requestId: String(res.locals.requestId),
        req,
        res,
      } as Parameters<RouteHandler<D>>[0]);
      if (res.headersSent || res.writableEnded) return;
      if (result === undefined) {
        res.status(route.success.status).end();
      } else {
        res.status(route.success.status).json(result);
      }
    } catch (err) {
      next(err);
    }
  });
}

/** Routes an express app serves, as `METHOD /path/{param}` (used by the OpenAPI coverage test). */
export function listServedRoutes(app: Express): string[] {
  const out: string[] = [];
  const stack = (
    app as unknown as { router: { stack: Array<{ route?: { path: string; methods: object } }> } }
  ).router.stack;
  for (const layer of stack) {
    if (!layer.route || typeof layer.route.path !== 'string') continue;
    const path = layer.route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    if (path === '/healthz' || path === '/readyz') continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (on && method !== '_all') out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out;
}
