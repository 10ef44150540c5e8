import {
  sessionChannels,
  sessionStatuses,
  type SessionChannel,
  type SessionStatus,
} from '@platform/contracts';
import type { SessionDeps } from '../deps.ts';
import {
  channelKey,
  counterModel,
  dailyModel,
  dayKey,
  hourField,
  hourKey,
  hourlyModel,
  type CounterDoc,
} from '../models/counters.ts';
import { claim } from '../models/mark.ts';
import type { SessionDoc } from '../models/session.ts';

/**
 * Keeps the metrics counters in step with sessions. Each change is applied once: a claim
 * (`<sessionKey>:count-start`, `…:count-end`) is inserted first and only its inserter increments.
 * Without multi-document transactions one window remains: a crash between the claim and the
 * increment loses that one increment (docs/sessions.md, "Exactness").
 */
export async function countStart(deps: SessionDeps, s: SessionDoc): Promise<void> {
  const won = await claim(deps.db, { _id: `${s._id}:count-start`, orgId: s.orgId, createdAt: deps.now() });
  if (!won) return;
  const startMs = s.startTime.getTime();
  const hourStart = Math.floor(startMs / 3_600_000) * 3_600_000;
  const second = Math.floor((startMs - hourStart) / 1000);
  const hourId = hourKey(s.orgId, hourStart);
  const dayId = dayKey(s.orgId, startMs);
  await Promise.all([
    deps.locks.run(`daily:${dayId}`, () =>
      upsert(() =>
        dailyModel(deps.db).updateOne(
          { _id: dayId },
          {
            $inc: { [`h.${hourField(startMs)}`]: 1 },
            $setOnInsert: { orgId: s.orgId, day: new Date(Math.floor(startMs / 86_400_000) * 86_400_000) },
          },
          { upsert: true },
        ),
      ),
    ),
    deps.locks.run(`counter:${s.orgId}`, () =>
      upsert(() =>
        counterModel(deps.db).updateOne(
          { _id: s.orgId },
          { $inc: { total: 1, [`cs.${channelKey(s.channel)}.Active`]: 1 }, $set: { updatedAt: deps.now() } },
          { upsert: true },
        ),
      ),
    ),
    deps.locks.run(`hourly:${hourId}`, () =>
      upsert(() =>
        hourlyModel(deps.db).updateOne(
          { _id: hourId },
          { $inc: { n: 1, [`s.${second}`]: 1 }, $setOnInsert: { orgId: s.orgId, hour: new Date(hourStart) } },
          { upsert: true },
        ),
      ),
    ),
  ]);
}

export async function countEnd(deps: SessionDeps, s: SessionDoc): Promise<void> {
  if (s.status === 'Active') return;
  const won = await claim(deps.db, { _id: `${s._id}:count-end`, orgId: s.orgId, createdAt: deps.now() });
  if (!won) return;
  const ck = channelKey(s.channel);
  await deps.locks.run(`counter:${s.orgId}`, () =>
    upsert(() =>
      counterModel(deps.db).updateOne(
        { _id: s.orgId },
        { $inc: { [`cs.${ck}.Active`]: -1, [`cs.${ck}.${s.status}`]: 1 }, $set: { updatedAt: deps.now() } },
        { upsert: true },
      ),
    ),
  );
}

/** Two replicas upserting the same new document: the loser's insert fails on `_id`; it then updates. */
async function upsert(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (err) {
    if ((err as { code?: number }).code !== 11000) throw err;
    await write();
  }
}

/** Count of sessions per channel and status, from the organization's counter document. */
export function countOf(doc: CounterDoc | null, channel: SessionChannel, status: SessionStatus): number {
  return doc?.cs?.[channelKey(channel)]?.[status] ?? 0;
}

/** Sessions with a channel in `channels` and a status in `statuses` (all when absent), from counters. */
export async function countFromCounters(
  deps: SessionDeps,
  orgId: string,
  channels: readonly SessionChannel[] = sessionChannels,
  statuses: readonly SessionStatus[] = sessionStatuses,
): Promise<number> {
  const doc = await counterModel(deps.db).findById(orgId).lean<CounterDoc>();
  let total = 0;
  for (const c of channels) for (const s of statuses) total += countOf(doc, c, s);
  return total;
}
