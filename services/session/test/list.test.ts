import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newOrg, startSessionHarness, type SessionHarness } from './helpers.ts';
import { newestFirst, seedSessions, type Seeded } from './seed.ts';

/** GET /sessions: filters alone and combined, search, paging totals, cursor walks, bad input, tenants. */
describe('session list', () => {
  let h: SessionHarness;
  const orgA = newOrg();
  const orgB = newOrg();
  let a: Seeded[];
  let b: Seeded[];
  const now = Date.now();

  beforeAll(async () => {
    h = await startSessionHarness();
    [a, b] = await Promise.all([seedSessions(h, orgA, 24, now), seedSessions(h, orgB, 3, now)]);
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const list = (query: string, orgId = orgA) => call('GET', `${h.url}?pageSize=200&${query}`, orgId);
  const ids = (res: { body: { items: { id: string }[] } }) => res.body.items.map((s) => s.id);
  const expected = (pred: (s: Seeded) => boolean) =>
    a
      .filter(pred)
      .sort(newestFirst)
      .map((s) => s.id);

  async function expectFilter(query: string, pred: (s: Seeded) => boolean) {
    const res = await list(query);
    expect(res.status, res.text).toBe(200);
    const want = expected(pred);
    expect(ids(res)).toEqual(want);
    expect(res.body.total).toBe(want.length);
    return res;
  }

  it('lists newest first with the visible fields and totals for "1–10 of 24"', async () => {
    const res = await call('GET', `${h.url}?pageSize=10`, orgA);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 24, page: 1, pageSize: 10, totalPages: 3 });
    expect(ids(res)).toEqual(expected(() => true).slice(0, 10));
    const item = res.body.items.find((s: any) => s.status === 'Completed');
    expect(Object.keys(item).sort()).toEqual(
      [
        'agentId',
        'agentName',
        'agentVersion',
        'channel',
        'duration',
        'durationDisplay',
        'endTime',
        'id',
        'messageCount',
        'metadata',
        'sessionType',
        'startTime',
        'status',
      ].sort(),
    );
    const page3 = await call('GET', `${h.url}?pageSize=10&page=3`, orgA);
    expect(ids(page3)).toEqual(expected(() => true).slice(20));
    expect(page3.body.nextCursor).toBeNull();
    const beyond = await call('GET', `${h.url}?pageSize=10&page=4`, orgA);
    expect(beyond.body).toMatchObject({ items: [], total: 24, totalPages: 3 });
    const byDefault = await call('GET', h.url, orgA);
    expect(byDefault.body.pageSize).toBe(50);
  });

  it('filters by each filter alone', async () => {
    await expectFilter('channel=Web', (s) => s.channel === 'Web');
    await expectFilter('channel=Mobile%20SDK', (s) => s.channel === 'Mobile SDK');
    await expectFilter('channel=Web,Phone', (s) => ['Web', 'Phone'].includes(s.channel));
    await expectFilter('channel=Telegram&channel=SIP', (s) => ['Telegram', 'SIP'].includes(s.channel));
    await expectFilter('status=Active', (s) => s.status === 'Active');
    await expectFilter('status=Completed&status=Failed', (s) => ['Completed', 'Failed'].includes(s.status));
    await expectFilter('agentId=agent-b', (s) => s.agentId === 'agent-b');
    const from = new Date(now - 10.5 * 3_600_000);
    const to = new Date(now - 4.5 * 3_600_000);
    await expectFilter(`from=${from.toISOString()}`, (s) => s.startTime >= from);
    await expectFilter(`to=${to.toISOString()}`, (s) => s.startTime <= to);
    await expectFilter(
      `from=${from.toISOString()}&to=${to.toISOString()}`,
      (s) => s.startTime >= from && s.startTime <= to,
    );
  });

  it('searches session ids, agent names and metadata values', async () => {
    const target = a[7]!;
    await expectFilter(`search=${target.id.slice(0, 8)}`, (s) => s.id.startsWith(target.id.slice(0, 8)));
    await expectFilter(`search=${target.id.toUpperCase()}`, (s) => s.id === target.id);
    await expectFilter('search=sales', (s) => s.agentName === 'Sales Assistant');
    await expectFilter('search=Billing%20Helper', (s) => s.agentName === 'Billing Helper');
    await expectFilter('search=helper', (s) => s.agentName === 'Billing Helper');
    await expectFilter('search=cust-7', (s) => s.metadata.customer === 'cust-7');
    await expectFilter('search=cust-1', (s) => String(s.metadata.customer).startsWith('cust-1'));
    await expectFilter('search=GOLD', (s) => s.metadata.tier === 'gold');
    await expectFilter('search=paris', (s) => 'address' in s.metadata);
    await expectFilter('search=no-such-thing', () => false);
    // Regex characters are plain text.
    await expectFilter('search=.*', () => false);
    await expectFilter('search=(', () => false);
  });

  it('combines every filter', async () => {
    const from = new Date(now - 20.5 * 3_600_000);
    const to = new Date(now - 1.5 * 3_600_000);
    const range = (s: Seeded) => s.startTime >= from && s.startTime <= to;
    await expectFilter(
      `channel=Web,Phone,SIP&status=Completed,Active&from=${from.toISOString()}&to=${to.toISOString()}`,
      (s) =>
        ['Web', 'Phone', 'SIP'].includes(s.channel) && ['Completed', 'Active'].includes(s.status) && range(s),
    );
    await expectFilter(
      'agentId=agent-a&status=Active',
      (s) => s.agentId === 'agent-a' && s.status === 'Active',
    );
    await expectFilter(
      'search=gold&channel=Phone',
      (s) => s.metadata.tier === 'gold' && s.channel === 'Phone',
    );
    await expectFilter(
      `search=support&status=Failed,Cancelled&agentId=agent-a&from=${from.toISOString()}`,
      (s) =>
        s.agentName === 'Support Bot' && ['Failed', 'Cancelled'].includes(s.status) && s.startTime >= from,
    );
  });

  it('pages filtered results with exact totals and walks everything by cursor', async () => {
    const want = expected((s) => s.status !== 'Active');
    const first = await call('GET', `${h.url}?status=Completed,Failed,Cancelled&pageSize=5&page=2`, orgA);
    expect(first.body).toMatchObject({ total: 18, totalPages: 4, page: 2 });
    expect(ids(first)).toEqual(want.slice(5, 10));

    const walked: string[] = [];
    let cursor: string | null = '';
    let pages = 0;
    while (cursor !== null) {
      const res: any = await call(
        'GET',
        `${h.url}?status=Completed,Failed,Cancelled&pageSize=5${cursor ? `&cursor=${cursor}` : ''}`,
        orgA,
      );
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(18);
      walked.push(...ids(res));
      cursor = res.body.nextCursor;
      pages++;
    }
    expect(walked).toEqual(want);
    expect(pages).toBe(4);
  });

  it('rejects invalid filter values, oversized pages and operator injection with a 400 naming the field', async () => {
    const cases: [string, string][] = [
      ['channel=Fax', 'channel'],
      ['channel=Web,fax', 'channel'],
      ['status=Done', 'status'],
      ['status=active', 'status'],
      ['pageSize=201', 'pageSize'],
      ['pageSize=0', 'pageSize'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['from=yesterday', 'from'],
      ['to=2025-13-45', 'to'],
      ['from=2025-02-01&to=2025-01-01', 'from'],
      ['status[$ne]=x', 'status[$ne]'],
      ['channel[$regex]=.*', 'channel[$regex]'],
      ['agentId[$gt]=', 'agentId[$gt]'],
      ['sort=startTime', 'sort'],
      ['cursor=not-a-cursor', 'cursor'],
      [`search=${'x'.repeat(201)}`, 'search'],
    ];
    for (const [query, field] of cases) {
      const res = await call('GET', `${h.url}?${query}`, orgA);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(
        res.body.errors.map((e: any) => e.field),
        query,
      ).toContain(field);
    }
    const named = await call('GET', `${h.url}?channel=Fax`, orgA);
    expect(named.body.errors[0].message).toContain('"Fax"');
  });

  it('keeps organizations apart on the list', async () => {
    const res = await call('GET', `${h.url}?pageSize=200`, orgB);
    expect(res.body.total).toBe(3);
    expect(ids(res).sort()).toEqual(b.map((s) => s.id).sort());
    const search = await call('GET', `${h.url}?search=${a[0]!.id}`, orgB);
    expect(search.body).toMatchObject({ total: 0, items: [] });
    // A cursor of another organization's list is refused, not followed.
    const other = await call('GET', `${h.url}?pageSize=2`, orgA);
    const cross = await call('GET', `${h.url}?cursor=${other.body.nextCursor}`, orgB);
    expect(cross.status).toBe(400);
  });

  it('requires the gateway identity', async () => {
    const res = await fetch(h.url);
    expect(res.status).toBe(401);
  });
});
