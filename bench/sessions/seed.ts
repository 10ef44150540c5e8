import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { sessionChannels, type SessionChannel, type SessionStatus } from '@platform/contracts';
import { searchTermsOf } from '../../services/session/src/domain/search-terms.ts';
import {
  channelKey,
  counterModel,
  dailyModel,
  dayKey,
  hourField,
  hourKey,
  hourlyModel,
} from '../../services/session/src/models/counters.ts';
import { sessionModel, type SessionDoc } from '../../services/session/src/models/session.ts';

/** A small deterministic PRNG, so two runs seed the same spread. */
export function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const channelWeights: [SessionChannel, number][] = [
  ['Web', 0.4],
  ['Mobile SDK', 0.2],
  ['WhatsApp', 0.15],
  ['Telegram', 0.1],
  ['Phone', 0.1],
  ['SIP', 0.05],
];
const day = 86_400_000;

function pick<T>(rand: () => number, weighted: [T, number][]): T {
  let r = rand();
  for (const [v, w] of weighted) if ((r -= w) < 0) return v;
  return weighted[weighted.length - 1]![0];
}

/**
 * Sessions as the service stores them: 200 agents (a few busy ones, a long tail), channels weighted
 * as above, start times over 90 days with a daily cycle, sessions of the last hour mostly Active,
 * older ones 80 % Completed, 8 % Failed, 12 % Cancelled, metadata with a user, plan, region, tags.
 */
export function makeSession(rand: () => number, orgId: string, now: number): SessionDoc {
  const agentNo = Math.floor(200 * rand() ** 3);
  let startMs = now - Math.floor(rand() * 90 * day);
  const hourOfDay = new Date(startMs).getUTCHours();
  if ((hourOfDay < 6 || hourOfDay > 22) && rand() < 0.5) startMs -= 8 * 3_600_000; // quieter nights
  startMs = Math.min(startMs, now - 1000);
  const recent = now - startMs < 3_600_000;
  const status: SessionStatus =
    recent && rand() < 0.8
      ? 'Active'
      : pick(rand, [
          ['Completed', 0.8],
          ['Failed', 0.08],
          ['Cancelled', 0.12],
        ]);
  const sessionId = randomUUID();
  const metadata: Record<string, unknown> = {
    userId: `u${Math.floor(rand() * 100_000)}`,
    plan: pick(rand, [
      ['free', 0.6],
      ['pro', 0.3],
      ['enterprise', 0.1],
    ]),
    region: pick(rand, [
      ['eu-west', 0.4],
      ['us-east', 0.4],
      ['ap-south', 0.2],
    ]),
    ...(rand() < 0.1 ? { tags: ['vip', 'returning'] } : {}),
    ...(rand() < 0.3 ? { orderId: `ORD-${Math.floor(rand() * 1e7)}` } : {}),
  };
  const agentName = `${['Support', 'Sales', 'Billing', 'Booking', 'Onboarding'][agentNo % 5]} Agent ${agentNo}`;
  const durationMs = Math.floor(30_000 + rand() * 40 * 60_000);
  const ended = status !== 'Active';
  return {
    _id: `${orgId}:${sessionId}`,
    orgId,
    sessionId,
    agentId: `agent-${agentNo}`,
    agentName,
    agentVersion: `1.${agentNo % 7}.0`,
    channel: pick(rand, channelWeights),
    sessionType: pick(rand, [
      ['chat', 0.7],
      ['voice', 0.25],
      ['video', 0.05],
    ]),
    status,
    startTime: new Date(startMs),
    ...(ended
      ? {
          endTime: new Date(Math.min(startMs + durationMs, now)),
          durationMs: Math.min(durationMs, now - startMs),
        }
      : {}),
    metadata,
    searchTerms: searchTermsOf({ sessionId, agentName, metadata }),
    messageCount: Math.floor(rand() * 40),
    source: 'agent',
    createdAt: new Date(startMs),
    updatedAt: new Date(startMs),
  };
}

/** Counter increments gathered while seeding, written in one go (as the service's writes would add up). */
export class CounterTally {
  total = 0;
  cs = new Map<string, number>();
  hours = new Map<number, { n: number; s: Map<number, number> }>();
  days = new Map<number, Map<string, number>>();

  add(s: SessionDoc) {
    this.total++;
    const k = `cs.${channelKey(s.channel)}.${s.status}`;
    this.cs.set(k, (this.cs.get(k) ?? 0) + 1);
    const ms = s.startTime.getTime();
    const hour = Math.floor(ms / 3_600_000) * 3_600_000;
    const h = this.hours.get(hour) ?? { n: 0, s: new Map() };
    h.n++;
    const sec = Math.floor((ms - hour) / 1000);
    h.s.set(sec, (h.s.get(sec) ?? 0) + 1);
    this.hours.set(hour, h);
    const dayStart = Math.floor(ms / 86_400_000) * 86_400_000;
    const d = this.days.get(dayStart) ?? new Map<string, number>();
    d.set(`h.${hourField(ms)}`, (d.get(`h.${hourField(ms)}`) ?? 0) + 1);
    this.days.set(dayStart, d);
  }

  async flush(db: Connection, orgId: string) {
    await counterModel(db).updateOne(
      { _id: orgId },
      { $inc: { total: this.total, ...Object.fromEntries(this.cs) }, $set: { updatedAt: new Date() } },
      { upsert: true },
    );
    // One updateOne each: FerretDB 1.24 stalls on a bulk `update` command whose updates match
    // existing documents (seen here), and the service itself writes these one at a time too.
    const hours = [...this.hours];
    const worker = async () => {
      for (let next = hours.pop(); next; next = hours.pop()) {
        const [hour, h] = next;
        await hourlyModel(db).updateOne(
          { _id: hourKey(orgId, hour) },
          {
            $inc: { n: h.n, ...Object.fromEntries([...h.s].map(([sec, n]) => [`s.${sec}`, n])) },
            $setOnInsert: { orgId, hour: new Date(hour) },
          },
          { upsert: true },
        );
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    for (const [dayStart, d] of this.days) {
      await dailyModel(db).updateOne(
        { _id: dayKey(orgId, dayStart) },
        { $inc: Object.fromEntries(d), $setOnInsert: { orgId, day: new Date(dayStart) } },
        { upsert: true },
      );
    }
    this.days.clear();
    this.total = 0;
    this.cs.clear();
    this.hours.clear();
  }
}

/** Inserts `count` sessions with insertMany in large batches; returns sessions per second. */
export async function seed(
  db: Connection,
  orgId: string,
  count: number,
  rand: () => number,
  now: number,
  onProgress: (done: number) => void,
  batchSize = 10_000,
): Promise<{ perSecond: number; sample: SessionDoc[] }> {
  const sessions = sessionModel(db).collection;
  const tally = new CounterTally();
  const sample: SessionDoc[] = [];
  const started = performance.now();
  for (let done = 0; done < count;) {
    const batch: SessionDoc[] = [];
    for (let i = 0; i < batchSize && done + i < count; i++) {
      const s = makeSession(rand, orgId, now);
      tally.add(s);
      batch.push(s);
    }
    if (sample.length < 200) sample.push(...batch.slice(0, 20));
    await sessions.insertMany(batch as never[], { ordered: false });
    done += batch.length;
    onProgress(done);
  }
  await tally.flush(db, orgId);
  return { perSecond: count / ((performance.now() - started) / 1000), sample };
}

export { sessionChannels };
