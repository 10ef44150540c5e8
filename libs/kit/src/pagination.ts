import type { FilterQuery, Model } from 'mongoose';
import { ValidationError } from './errors.ts';

/**
 * Lists in the API shape `{items, total, page, pageSize, totalPages, nextCursor}`, newest first.
 * `page` serves "1–50 of 12,345" displays; `cursor` (opaque, from `nextCursor`) walks a large result
 * without skip: it encodes the (sort value, _id) of the last item and pages by range.
 */
export interface PageInput {
  page: number;
  pageSize: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
  totalPages: number;
  nextCursor: string | null;
}

interface CursorState {
  v: string | number | null;
  id: string;
}

export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

export function decodeCursor(cursor: string): CursorState {
  try {
    const state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorState;
    if (typeof state !== 'object' || state === null || typeof state.id !== 'string') throw new Error('shape');
    return state;
  } catch {
    throw new ValidationError([
      { field: 'cursor', message: 'is not a cursor returned by this list', location: 'query' },
    ]);
  }
}

const toCursorValue = (v: unknown): string | number | null =>
  v instanceof Date ? v.toISOString() : typeof v === 'number' || typeof v === 'string' ? v : null;

/**
 * Runs a filtered, sorted list query on a model. `sortField` is sorted descending with `_id` as the
 * tie-breaker (the index serving it should be `{orgId, …filters, sortField: -1, _id: -1}`).
 * The filter must already contain `orgId`.
 */
export async function paginate<D, T>(
  model: Model<D>,
  filter: FilterQuery<D> & { orgId: string },
  input: PageInput,
  map: (doc: D) => T,
  options: { sortField?: string; sortIsDate?: boolean } = {},
): Promise<Page<T>> {
  const sortField = options.sortField ?? 'createdAt';
  const sortIsDate = options.sortIsDate ?? sortField === 'createdAt';
  let query: FilterQuery<D> = filter;
  let skip = (input.page - 1) * input.pageSize;
  if (input.cursor) {
    const { v, id } = decodeCursor(input.cursor);
    const value = sortIsDate && typeof v === 'string' ? new Date(v) : v;
    query = {
      $and: [filter, { $or: [{ [sortField]: { $lt: value } }, { [sortField]: value, _id: { $lt: id } }] }],
    } as FilterQuery<D>;
    skip = 0;
  }
  const [docs, total] = await Promise.all([
    model
      .find(query)
      .sort({ [sortField]: -1, _id: -1 })
      .skip(skip)
      .limit(input.pageSize)
      .lean<D[]>(),
    model.countDocuments(filter),
  ]);
  const last =
    docs.length === input.pageSize ? (docs[docs.length - 1] as Record<string, unknown>) : undefined;
  return {
    items: docs.map(map),
    total,
    page: input.cursor ? input.page : input.page,
    pageSize: input.pageSize,
    totalPages: Math.ceil(total / input.pageSize),
    nextCursor: last ? encodeCursor({ v: toCursorValue(last[sortField]), id: String(last._id) }) : null,
  };
}
