import type { ZodType } from 'zod';
import type { ServiceName } from './services.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * One HTTP operation of the public API. Services mount handlers by these definitions (the kit
 * validates params, query and body with the schemas given here), the OpenAPI document is generated
 * from the same list, and the gateway learns from `access` which routes need no bearer token.
 */
export interface RouteDef<
  P extends ZodType = ZodType,
  Q extends ZodType = ZodType,
  B extends ZodType = ZodType,
  R extends ZodType = ZodType,
  A extends 'public' | 'authenticated' = 'public' | 'authenticated',
> {
  service: ServiceName;
  method: HttpMethod;
  /** OpenAPI form: `/api/v1/workflows/{id}` */
  path: string;
  summary: string;
  tag: string;
  /** `public`: reachable without a bearer token (login, signup, inbound hooks…). */
  access: A;
  params?: P;
  query?: Q;
  body?: B;
  /** Success status and body schema; `contentType` for non-JSON answers (CSV export, SSE). */
  success: { status: number; schema?: R; contentType?: string; description?: string };
  /** Error statuses this route documents besides the common ones (401, 429, 5xx). */
  errors?: number[];
}

export const routeCatalog: RouteDef[] = [];

export function defineRoute<
  P extends ZodType,
  Q extends ZodType,
  B extends ZodType,
  R extends ZodType,
  A extends 'public' | 'authenticated',
>(def: RouteDef<P, Q, B, R, A>): RouteDef<P, Q, B, R, A> {
  routeCatalog.push(def as unknown as RouteDef);
  return def;
}

/** `/a/{id}/b` → `/a/:id/b` (express form). */
export function toExpressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}
