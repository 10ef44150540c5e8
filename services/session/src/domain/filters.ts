import type { FilterQuery } from 'mongoose';
import { sessionStatuses, type SessionFilters } from '@platform/contracts';
import { ValidationError } from '@platform/kit';
import type { SessionDoc } from '../models/session.ts';
import { searchCondition } from './search-terms.ts';

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;

/** `from` of a date means its start, `to` of a date its last millisecond (UTC). */
function bound(value: string, edge: 'from' | 'to'): Date {
  if (dateOnly.test(value)) {
    const start = new Date(`${value}T00:00:00.000Z`);
    return edge === 'from' ? start : new Date(start.getTime() + 86_400_000 - 1);
  }
  return new Date(value);
}

/**
 * The MongoDB filter of the list/export filters, always scoped to the organization. Every value is
 * validated by the route's schema first (enums, dates, lengths), so no operator can come from a client.
 */
export function sessionFilter(orgId: string, f: SessionFilters): FilterQuery<SessionDoc> & { orgId: string } {
  const filter: FilterQuery<SessionDoc> & { orgId: string } = { orgId };
  if (f.channel) {
    filter.channel = { $in: f.channel };
    // All four statuses when none is asked: same result, and MongoDB can merge the index's sorted ranges.
    filter.status = { $in: f.status ?? [...sessionStatuses] };
  } else if (f.status) {
    filter.status = { $in: f.status };
  }
  if (f.agentId) filter.agentId = f.agentId;
  if (f.from || f.to) {
    const range: { $gte?: Date; $lte?: Date } = {};
    if (f.from) range.$gte = bound(f.from, 'from');
    if (f.to) range.$lte = bound(f.to, 'to');
    if (range.$gte && range.$lte && range.$gte > range.$lte) {
      throw new ValidationError([{ field: 'from', message: 'must not be after `to`', location: 'query' }]);
    }
    filter.startTime = range;
  }
  if (f.search) filter.searchTerms = searchCondition(f.search);
  return filter;
}

/** Whether the list total can come from the counters (only channel and status filters). */
export function countableByCounters(f: SessionFilters): boolean {
  return !f.search && !f.from && !f.to && !f.agentId;
}
