import type { Connection } from 'mongoose';

/** The index each measured query is served by on MongoDB, as declared in models/session.ts. */
const declared: [string, Record<string, unknown>, string][] = [
  [
    'list first page',
    {},
    '{orgId:1, startTime:-1, _id:-1}: equality orgId, sort startTime,_id (no in-memory sort)',
  ],
  [
    'list channel+status+range',
    {
      channel: { $in: ['Web', 'WhatsApp'] },
      status: { $in: ['Completed'] },
      startTime: { $gte: 'from', $lte: 'to' },
    },
    '{orgId:1, channel:1, status:1, startTime:-1, _id:-1}: equality orgId/channel/status ($in → merged sorted ranges), sort and range on startTime',
  ],
  [
    'list search',
    { searchTerms: { $regex: '^u1234' } },
    '{orgId:1, searchTerms:1}: anchored prefix = tight range on the multikey index; matches top-k sorted',
  ],
  [
    'list deep page',
    {},
    '{orgId:1, startTime:-1, _id:-1}: skip walks the index (O(skip)); cursor paging avoids it',
  ],
  [
    'metrics',
    {},
    'none: session_counters + 2 session_daily + 1 session_hourly documents, each read by _id; no session scan',
  ],
];

function indexNames(plan: unknown, out: string[] = []): string[] {
  if (!plan || typeof plan !== 'object') return out;
  const p = plan as Record<string, unknown>;
  if (typeof p.indexName === 'string') out.push(`${p.stage}:${p.indexName}`);
  for (const v of Object.values(p)) if (v && typeof v === 'object') indexNames(v, out);
  return out;
}

export async function indexReport(db: Connection, orgId: string, now: number): Promise<string[]> {
  const lines: string[] = [];
  const day = 86_400_000;
  for (const [name, extra, index] of declared) {
    let plan = '';
    if (name !== 'metrics') {
      const filter: Record<string, unknown> = { orgId, ...extra };
      if (filter.startTime)
        filter.startTime = { $gte: new Date(now - 30 * day), $lte: new Date(now - 7 * day) };
      const explained = (await db
        .collection('sessions')
        .find(filter)
        .sort({ startTime: -1, _id: -1 })
        .limit(50)
        .explain()) as Record<string, unknown>;
      plan =
        'ferretdbVersion' in ((explained.serverInfo as object) ?? {})
          ? `FerretDB plan: filterPushdown=${explained.filterPushdown} sortPushdown=${explained.sortPushdown} (${JSON.stringify((explained.queryPlanner as { Plan?: unknown })?.Plan)})`
          : `MongoDB plan: ${indexNames((explained.queryPlanner as { winningPlan?: unknown })?.winningPlan).join(' → ') || 'COLLSCAN'}`;
    }
    lines.push(`${name}: ${index}${plan ? `\n      ${plan}` : ''}`);
  }
  return lines;
}
