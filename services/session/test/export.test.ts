import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  newOrg,
  publishMessage,
  publishStart,
  publishSystemEvent,
  startSessionHarness,
  waitFor,
  type SessionHarness,
} from './helpers.ts';
import { seedSessions } from './seed.ts';

/** RFC 4180 parser for the test (quoted fields, doubled quotes, CRLF inside quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

const visible = (s: any) => [
  s.id,
  s.agentName,
  s.channel,
  s.sessionType,
  s.status,
  s.startTime,
  s.endTime ?? '',
  s.duration === null ? 'Ongoing' : String(s.duration),
];

describe('session export', () => {
  let h: SessionHarness;
  const org = newOrg();
  const other = newOrg();
  let tricky: string;

  beforeAll(async () => {
    h = await startSessionHarness({ EXPORT_BATCH_SIZE: '10' });
    await seedSessions(h, org, 24);
    const cmd = await publishStart(h.js, { orgId: org, agentName: 'Bot, "The" Great\nv2', channel: 'SIP' });
    tricky = cmd.sessionId;
    await publishStart(h.js, { orgId: other, channel: 'Web' });
    await waitFor(async () => (await call('GET', `${h.url}/metrics`, org)).body.totalSessions === 25);
    await waitFor(async () => (await call('GET', `${h.url}/metrics`, other)).body.totalSessions === 1);
  });
  afterAll(async () => {
    await h?.dispose();
  });

  const exportOf = (query: string, orgId = org) => call('GET', `${h.url}/export?${query}`, orgId);
  const listOf = async (query: string, orgId = org) =>
    (await call('GET', `${h.url}?pageSize=200&${query}`, orgId)).body.items;

  it('exports CSV that parses back equal to the list, with a file name', async () => {
    const res = await exportOf('format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="sessions-[0-9TZ-]+\.csv"$/,
    );
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual(['id', 'agent', 'channel', 'type', 'status', 'start', 'end', 'duration']);
    expect(rows.slice(1)).toEqual((await listOf('')).map(visible));
    expect(rows.find((r) => r[0] === tricky)?.[1]).toBe('Bot, "The" Great\nv2');
    expect(rows.some((r) => r[7] === 'Ongoing')).toBe(true);
  });

  it('applies the list filters to the CSV', async () => {
    const query = 'channel=Web,Phone,SIP&status=Completed,Active&search=support';
    const rows = parseCsv((await exportOf(`format=csv&${query}`)).text);
    const list = await listOf(query);
    expect(list.length).toBeGreaterThan(0);
    expect(rows.slice(1)).toEqual(list.map(visible));
  });

  it('resumes after the last id received, or from a list cursor', async () => {
    const all = parseCsv((await exportOf('format=csv')).text).slice(1);
    const resumed = parseCsv((await exportOf(`format=csv&after=${all[9]![0]}`)).text).slice(1);
    expect(resumed).toEqual(all.slice(10));
    const page = await call('GET', `${h.url}?pageSize=5`, org);
    const fromCursor = parseCsv((await exportOf(`format=csv&cursor=${page.body.nextCursor}`)).text).slice(1);
    expect(fromCursor).toEqual(all.slice(5));
  });

  it('exports NDJSON with full metadata, messages and system events', async () => {
    const start = await publishStart(h.js, { orgId: other, metadata: { crm: { id: 42 } } });
    for (let p = 1; p <= 12; p++) {
      await publishMessage(h.js, {
        orgId: other,
        sessionId: start.sessionId,
        position: p,
        sender: 'user',
        content: `line ${p}`,
      });
    }
    await publishSystemEvent(h.js, {
      orgId: other,
      sessionId: start.sessionId,
      type: 'error',
      timestamp: new Date().toISOString(),
      details: { code: 'E1' },
    });
    await waitFor(async () => {
      const d = await call('GET', `${h.url}/${start.sessionId}`, other);
      return d.body?.messages?.length === 12 && d.body.systemEvents.length === 2;
    });
    const res = await exportOf('format=json', other);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/\.ndjson"$/);
    const lines = res.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    const line = lines.find((l) => l.id === start.sessionId);
    const detail = (await call('GET', `${h.url}/${start.sessionId}`, other)).body;
    expect(line).toEqual({ ...detail, messagesNextAfter: undefined, systemEventsNextCursor: undefined });
    expect(line.messages.map((m: any) => m.content)).toEqual(
      Array.from({ length: 12 }, (_, i) => `line ${i + 1}`),
    );
    expect(line.metadata).toEqual({ crm: { id: 42 } });
  });

  it('guards CSV cells against formula injection', async () => {
    const cmd = await publishStart(h.js, { orgId: other, agentName: '=HYPERLINK("x")' });
    await waitFor(async () => (await call('GET', `${h.url}/${cmd.sessionId}`, other)).status === 200);
    const rows = parseCsv((await exportOf('format=csv', other)).text);
    expect(rows.find((r) => r[0] === cmd.sessionId)?.[1]).toBe(`'=HYPERLINK("x")`);
  });

  it('keeps organizations apart and rejects bad parameters', async () => {
    const rows = parseCsv((await exportOf('format=csv', other)).text).slice(1);
    const theirs = new Set((await listOf('', other)).map((s: any) => s.id));
    expect(rows.every((r) => theirs.has(r[0]!))).toBe(true);
    expect(rows.some((r) => r[0] === tricky)).toBe(false);
    expect((await exportOf(`format=csv&after=${tricky}`, other)).status).toBe(400);
    expect((await exportOf('format=xml')).status).toBe(400);
    expect((await exportOf('status[$ne]=x')).status).toBe(400);
    expect((await exportOf('channel=Fax')).status).toBe(400);
    expect((await exportOf('after=nope')).status).toBe(400);
  });
});
