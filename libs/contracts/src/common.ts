import { z } from './zod.ts';

/** RFC 9457 problem details, as every error of the API is answered. */
export const FieldError = z.object({
  field: z.string().openapi({ description: 'Dotted path of the offending field, e.g. `steps.0.type`' }),
  message: z.string(),
  location: z.enum(['body', 'query', 'path', 'header']).optional(),
});
export type FieldError = z.infer<typeof FieldError>;

export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    requestId: z.string().optional(),
    errors: z.array(FieldError).optional(),
  })
  .openapi('Problem');
export type Problem = z.infer<typeof Problem>;

/** Opaque identifiers; the API never promises their format beyond "a non-empty string". */
export const Id = z.string().min(1).max(128);

export const IdParams = z.object({ id: Id });

export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional(),
});
export type PageQuery = z.infer<typeof PageQuery>;

/** A page of a list: `total` for "1–50 of 12,345", `nextCursor` for walking everything. */
export function pageOf<T extends z.ZodTypeAny>(item: T) {
  return z.object({
    items: z.array(item),
    total: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
    totalPages: z.number().int(),
    nextCursor: z.string().nullable(),
  });
}

export const Role = z.enum(['owner', 'admin', 'developer', 'viewer']);
export type Role = z.infer<typeof Role>;

export const Plan = z
  .string()
  .min(1)
  .max(64)
  .openapi({ description: 'Plan name, e.g. `pro` or `enterprise`' });

/** The verified caller, carried from the gateway to services inside a short-lived internal token. */
export const Identity = z.object({
  orgId: Id,
  userId: Id.optional(),
  apiKeyId: Id.optional(),
  role: Role,
  plan: Plan,
  requestId: z.string().optional(),
});
export type Identity = z.infer<typeof Identity>;

export const Readiness = z.object({
  status: z.enum(['ready', 'unavailable']),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() })),
});
export type Readiness = z.infer<typeof Readiness>;
