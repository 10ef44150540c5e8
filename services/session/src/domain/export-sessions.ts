import type { FilterQuery } from 'mongoose';
import type { SessionExportQuery } from '@platform/contracts';
import { ValidationError } from '@platform/kit';
import type { SessionDeps } from '../deps.ts';
import { messageModel, positionWidth, type MessageDoc } from '../models/message.ts';
import { sessionModel, type SessionDoc } from '../models/session.ts';
import { systemEventModel, type SystemEventDoc } from '../models/system-event.ts';
import { csvHeader, csvRow, sessionCsvRow } from './csv.ts';
import { sessionFilter } from './filters.ts';
import { requireSessionId, sessionKey } from './keys.ts';
import { afterPoint, pointOfCursor } from './list-sessions.ts';
import { toMessage, toSummary, toSystemEvent } from './views.ts';

const chunkBytes = 64 * 1024;

/** The export's query: the list's filters, newest first, from a resume point (`after` or `cursor`). */
async function exportQuery(deps: SessionDeps, orgId: string, q: SessionExportQuery) {
  const filter = sessionFilter(orgId, q);
  let point: FilterQuery<SessionDoc> | undefined;
  if (q.cursor) point = pointOfCursor(orgId, q.cursor);
  if (q.after) {
    const key = sessionKey(orgId, requireSessionId(q.after, 'after'));
    const last = await sessionModel(deps.db).findById(key).select({ startTime: 1 }).lean<SessionDoc>();
    // An unknown resume id is a client error, not "start over": that would duplicate rows.
    if (!last) {
      throw new ValidationError([
        { field: 'after', message: 'is not a session of this organization', location: 'query' },
      ]);
    }
    point = afterPoint(last.startTime, key);
  }
  return point ? { $and: [filter, point] } : filter;
}

/**
 * Opens the export: the first batch is read before anything is sent, so a bad filter or a database
 * outage is still an ordinary error answer. The returned generator yields text chunks of about 64 KB
 * straight from the cursor (memory stays constant whatever the number of sessions).
 */
export async function openExport(
  deps: SessionDeps,
  orgId: string,
  q: SessionExportQuery,
): Promise<AsyncGenerator<string>> {
  const query = await exportQuery(deps, orgId, q);
  const cursor = sessionModel(deps.db)
    .find(query)
    .sort({ startTime: -1, _id: -1 })
    .lean<SessionDoc[]>()
    .cursor({ batchSize: deps.config.EXPORT_BATCH_SIZE });
  const first = (await cursor.next()) as SessionDoc | null;
  const rows = q.format === 'csv' ? csvRows : ndjsonRows;
  async function* generate(): AsyncGenerator<string> {
    let buffer = q.format === 'csv' ? csvRow(csvHeader) : '';
    try {
      for (let doc = first; doc; doc = (await cursor.next()) as SessionDoc | null) {
        for await (const piece of rows(deps, doc)) {
          buffer += piece;
          if (buffer.length >= chunkBytes) {
            yield buffer;
            buffer = '';
          }
        }
      }
      if (buffer) yield buffer;
    } finally {
      await cursor.close().catch(() => undefined);
    }
  }
  return generate();
}

async function* csvRows(_deps: SessionDeps, doc: SessionDoc): AsyncGenerator<string> {
  yield sessionCsvRow(toSummary(doc));
}

/**
 * One line per session: the session's fields, then its whole transcript and system events, written
 * piece by piece from their own cursors (a session with a long history is never held in memory).
 */
async function* ndjsonRows(deps: SessionDeps, doc: SessionDoc): AsyncGenerator<string> {
  const head = JSON.stringify(toSummary(doc));
  yield `${head.slice(0, -1)},"messages":[`;
  const messages = messageModel(deps.db)
    .find({
      _id: { $gt: `${doc._id}:m:`, $lte: `${doc._id}:m:${'9'.repeat(positionWidth)}` },
      orgId: doc.orgId,
    })
    .sort({ _id: 1 })
    .lean<MessageDoc[]>()
    .cursor({ batchSize: 500 });
  let sep = '';
  for await (const m of messages) {
    yield sep + JSON.stringify(toMessage(m as MessageDoc));
    sep = ',';
  }
  yield '],"systemEvents":[';
  const events = systemEventModel(deps.db)
    .find({ orgId: doc.orgId, sessionId: doc.sessionId })
    .sort({ timestamp: 1, _id: 1 })
    .lean<SystemEventDoc[]>()
    .cursor({ batchSize: 500 });
  sep = '';
  for await (const e of events) {
    yield sep + JSON.stringify(toSystemEvent(e as SystemEventDoc));
    sep = ',';
  }
  yield ']}\n';
}

export function exportFileName(format: 'csv' | 'json', now: Date): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return `sessions-${stamp}.${format === 'csv' ? 'csv' : 'ndjson'}`;
}
