import type { FilterQuery } from 'mongoose';
import type { SessionListQuery, SessionSummary } from '@platform/contracts';
import { decodeCursor, encodeCursor, ValidationError, type Page } from '@platform/kit';
import type { SessionDeps } from '../deps.ts';
import { sessionModel, type SessionDoc } from '../models/session.ts';
import { countFromCounters } from './counters.ts';
import { countableByCounters, sessionFilter } from './filters.ts';
import { toSummary } from './views.ts';

/** `{startTime, _id}` strictly after a resume point in newest-first order. */
export function afterPoint(startTime: Date, id: string): FilterQuery<SessionDoc> {
  return { $or: [{ startTime: { $lt: startTime } }, { startTime, _id: { $lt: id } }] };
}

export function cursorOf(doc: Pick<SessionDoc, 'startTime' | '_id'>): string {
  return encodeCursor({ v: doc.startTime.toISOString(), id: doc._id });
}

/** A resume point from a list cursor; the cursor's key must belong to the caller's organization. */
export function pointOfCursor(orgId: string, cursor: string): FilterQuery<SessionDoc> {
  const { v, id } = decodeCursor(cursor);
  const at = typeof v === 'string' ? new Date(v) : new Date(NaN);
  if (Number.isNaN(at.getTime()) || !id.startsWith(`${orgId}:`)) {
    throw new ValidationError([
      { field: 'cursor', message: 'is not a cursor returned by this list', location: 'query' },
    ]);
  }
  return afterPoint(at, id);
}

/**
 * GET /sessions: newest first (startTime, then _id), page/pageSize with totals, or cursor walking.
 * Like the kit's `paginate`, but the total comes from the counters when only channel and status
 * filter (the dashboard's usual views): exact without counting millions of index keys.
 */
export async function listSessions(
  deps: SessionDeps,
  orgId: string,
  q: SessionListQuery,
): Promise<Page<SessionSummary>> {
  const filter = sessionFilter(orgId, q);
  const query: FilterQuery<SessionDoc> = q.cursor
    ? { $and: [filter, pointOfCursor(orgId, q.cursor)] }
    : filter;
  const skip = q.cursor ? 0 : (q.page - 1) * q.pageSize;
  const sessions = sessionModel(deps.db);
  const [docs, total] = await Promise.all([
    sessions.find(query).sort({ startTime: -1, _id: -1 }).skip(skip).limit(q.pageSize).lean<SessionDoc[]>(),
    countableByCounters(q)
      ? countFromCounters(deps, orgId, q.channel, q.status)
      : sessions.countDocuments(filter),
  ]);
  const last = docs.length === q.pageSize ? docs[docs.length - 1] : undefined;
  return {
    items: docs.map(toSummary),
    total,
    page: q.page,
    pageSize: q.pageSize,
    totalPages: Math.ceil(total / q.pageSize),
    nextCursor: last ? cursorOf(last) : null,
  };
}
