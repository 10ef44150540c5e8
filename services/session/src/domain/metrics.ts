import {
  sessionChannels,
  sessionStatuses,
  type SessionChannel,
  type SessionMetrics,
  type SessionStatus,
} from '@platform/contracts';
import type { SessionDeps } from '../deps.ts';
import {
  counterModel,
  dailyModel,
  dayKey,
  hourField,
  hourKey,
  hourlyModel,
  type CounterDoc,
  type DailyDoc,
  type HourlyDoc,
} from '../models/counters.ts';
import { countOf } from './counters.ts';

const dayS = 86_400;

/**
 * Sessions started in the last 24 hours, to the second: the whole hours after the window's edge come
 * from the hour counts of the (at most two) UTC days the window spans, the edge hour from its
 * per-second counts (start second ≥ now − 24 h). Three documents read by `_id`, whatever the number
 * of sessions (FerretDB pushes only an exact `{_id}` filter down; MongoDB uses the `_id` index).
 */
async function recentSessions(deps: SessionDeps, orgId: string, now: Date): Promise<number> {
  const nowS = Math.floor(now.getTime() / 1000);
  const edgeS = nowS - dayS;
  const edgeHourMs = Math.floor(edgeS / 3600) * 3_600_000;
  const [edgeDay, today, edge] = await Promise.all([
    dailyModel(deps.db).findById(dayKey(orgId, edgeHourMs)).lean<DailyDoc>(),
    dailyModel(deps.db).findById(dayKey(orgId, now.getTime())).lean<DailyDoc>(),
    hourlyModel(deps.db).findById(hourKey(orgId, edgeHourMs)).lean<HourlyDoc>(),
  ]);
  let count = 0;
  for (let h = edgeHourMs + 3_600_000; h <= now.getTime(); h += 3_600_000) {
    const day = dayKey(orgId, h) === edgeDay?._id ? edgeDay : dayKey(orgId, h) === today?._id ? today : null;
    count += day?.h?.[hourField(h)] ?? 0;
  }
  const fromSecond = edgeS - edgeHourMs / 1000;
  for (const [second, n] of Object.entries(edge?.s ?? {})) if (Number(second) >= fromSecond) count += n;
  return count;
}

/** The metrics of an organization: counters only, no scan of sessions (constant time in N). */
export async function getMetrics(deps: SessionDeps, orgId: string): Promise<SessionMetrics> {
  const now = deps.now();
  const [counters, recent] = await Promise.all([
    counterModel(deps.db).findById(orgId).lean<CounterDoc>(),
    recentSessions(deps, orgId, now),
  ]);
  const byStatus = Object.fromEntries(sessionStatuses.map((s) => [s, 0])) as Record<SessionStatus, number>;
  const byChannel = sessionChannels.map((channel: SessionChannel) => {
    let count = 0;
    for (const status of sessionStatuses) {
      const n = countOf(counters, channel, status);
      count += n;
      byStatus[status] += n;
    }
    return { channel, count };
  });
  // Most used first; equal counts keep the order of the channel list.
  const ranked = [...byChannel].sort((a, b) => b.count - a.count);
  const top = ranked[0] && ranked[0].count > 0 ? ranked[0] : null;
  return {
    totalSessions: counters?.total ?? 0,
    activeSessions: byStatus.Active,
    recentSessions: recent,
    topChannel: top,
    byChannel: ranked,
    byStatus,
    generatedAt: now.toISOString(),
  };
}
