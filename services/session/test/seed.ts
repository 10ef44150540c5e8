import { randomUUID } from 'node:crypto';
import { sessionChannels, sessionTypes, type SessionChannel, type SessionStatus } from '@platform/contracts';
import { publishEnd, publishStart, waitFor, call, type SessionHarness } from './helpers.ts';

export interface Seeded {
  id: string;
  orgId: string;
  agentId: string;
  agentName: string;
  channel: SessionChannel;
  sessionType: string;
  status: SessionStatus;
  startTime: Date;
  endTime?: Date;
  metadata: Record<string, unknown>;
}

const agents = [
  { agentId: 'agent-a', agentName: 'Support Bot' },
  { agentId: 'agent-b', agentName: 'Sales Assistant' },
  { agentId: 'agent-c', agentName: 'Billing Helper' },
];
const statuses: SessionStatus[] = ['Active', 'Completed', 'Failed', 'Cancelled'];

/**
 * `count` sessions over every channel, type, status and three agents, one hour apart (newest first:
 * index 0 started an hour ago), written through ingest; resolves when all are listed with their status.
 */
export async function seedSessions(h: SessionHarness, orgId: string, count: number, base = Date.now()) {
  const seeded: Seeded[] = [];
  for (let i = 0; i < count; i++) {
    const agent = agents[i % 3]!;
    seeded.push({
      id: randomUUID(),
      orgId,
      ...agent,
      channel: sessionChannels[i % 6]!,
      sessionType: sessionTypes[i % 3]!,
      status: statuses[i % 4]!,
      startTime: new Date(base - (i + 1) * 3_600_000),
      metadata: {
        customer: `cust-${i}`,
        tier: i % 2 ? 'gold' : 'silver',
        ...(i % 5 === 0 ? { address: { city: 'Paris' } } : {}),
        note: 'Line one, "quoted"\nline two',
      },
    });
  }
  await Promise.all(
    seeded.map((s) =>
      publishStart(h.js, {
        orgId,
        sessionId: s.id,
        agentId: s.agentId,
        agentName: s.agentName,
        channel: s.channel,
        sessionType: s.sessionType as never,
        startTime: s.startTime,
        metadata: s.metadata,
      }),
    ),
  );
  await waitFor(async () => (await call('GET', `${h.url}/metrics`, orgId)).body?.totalSessions === count);
  for (const [i, s] of seeded.entries()) {
    if (s.status === 'Active') continue;
    s.endTime = new Date(s.startTime.getTime() + (i + 1) * 60_000);
    await publishEnd(h.js, {
      orgId,
      sessionId: s.id,
      status: s.status as never,
      endTime: s.endTime.toISOString(),
    });
  }
  const active = seeded.filter((s) => s.status === 'Active').length;
  await waitFor(
    async () => (await call('GET', `${h.url}/metrics`, orgId)).body?.activeSessions === active,
    30_000,
  );
  return seeded;
}

export const newestFirst = (a: Seeded, b: Seeded) => b.startTime.getTime() - a.startTime.getTime();
