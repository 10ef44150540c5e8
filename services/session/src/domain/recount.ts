import { sessionChannels, sessionStatuses } from '@platform/contracts';
import type { SessionDeps } from '../deps.ts';
import {
  channelKey,
  counterModel,
  dailyModel,
  dayKey,
  hourField,
  hourKey,
  hourlyModel,
} from '../models/counters.ts';
import { sessionModel } from '../models/session.ts';
import { getMetrics } from './metrics.ts';

/**
 * Rebuilds an organization's counters from its sessions: the repair for the one increment a crash
 * between a claim and its increment can lose (docs/sessions.md, "Exactness"). It scans the
 * organization's sessions once, so it is an operator's tool (RPC `svc.session.recount`), not a
 * metrics path. Writes racing with it may be off until the next recount; run it when ingest is quiet.
 */
export async function recountMetrics(deps: SessionDeps, orgId: string) {
  const sessions = sessionModel(deps.db);
  const groups = await sessions.aggregate<{ _id: { channel: string; status: string }; n: number }>([
    { $match: { orgId } },
    { $group: { _id: { channel: '$channel', status: '$status' }, n: { $sum: 1 } } },
  ]);
  const cs: Record<string, Record<string, number>> = {};
  for (const c of sessionChannels) cs[channelKey(c)] = Object.fromEntries(sessionStatuses.map((s) => [s, 0]));
  let total = 0;
  for (const g of groups) {
    const key = channelKey(g._id.channel);
    cs[key] ??= {};
    cs[key][g._id.status] = g.n;
    total += g.n;
  }
  await deps.locks.run(`counter:${orgId}`, () =>
    counterModel(deps.db).updateOne(
      { _id: orgId },
      { $set: { total, cs, updatedAt: deps.now() } },
      { upsert: true },
    ),
  );

  // The documents the Recent Sessions window can read: the daily documents of yesterday and today
  // (UTC) and the hourly documents since the start of yesterday, from the sessions started since then.
  const now = deps.now().getTime();
  const since = Math.floor((now - 86_400_000) / 86_400_000) * 86_400_000;
  const days = new Map<string, { day: number; h: Record<string, number> }>();
  const hours = new Map<number, { n: number; s: Record<string, number> }>();
  for (let d = since; d <= now; d += 86_400_000) days.set(dayKey(orgId, d), { day: d, h: {} });
  for (let h = since; h <= now; h += 3_600_000) hours.set(h, { n: 0, s: {} });
  const recent = sessions
    .find({ orgId, startTime: { $gte: new Date(since) } })
    .select({ startTime: 1 })
    .lean<{ startTime: Date }[]>()
    .cursor({ batchSize: 1000 });
  for await (const doc of recent) {
    const ms = (doc as { startTime: Date }).startTime.getTime();
    const hour = Math.floor(ms / 3_600_000) * 3_600_000;
    const bucket = hours.get(hour);
    const day = days.get(dayKey(orgId, ms));
    if (!bucket || !day) continue;
    const second = String(Math.floor((ms - hour) / 1000));
    bucket.n++;
    bucket.s[second] = (bucket.s[second] ?? 0) + 1;
    day.h[hourField(ms)] = (day.h[hourField(ms)] ?? 0) + 1;
  }
  for (const [id, d] of days) {
    await deps.locks.run(`daily:${id}`, () =>
      dailyModel(deps.db).updateOne(
        { _id: id },
        { $set: { orgId, day: new Date(d.day), h: d.h } },
        { upsert: true },
      ),
    );
  }
  for (const [hour, bucket] of hours) {
    const id = hourKey(orgId, hour);
    await deps.locks.run(`hourly:${id}`, () =>
      hourlyModel(deps.db).updateOne(
        { _id: id },
        { $set: { orgId, hour: new Date(hour), n: bucket.n, s: bucket.s } },
        { upsert: true },
      ),
    );
  }
  return getMetrics(deps, orgId);
}
