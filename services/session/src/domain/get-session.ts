import type { SessionDetail } from '@platform/contracts';
import { decodeCursor, encodeCursor, NotFoundError, ValidationError } from '@platform/kit';
import type { SessionDeps } from '../deps.ts';
import { messageKey, messageModel, positionWidth, type MessageDoc } from '../models/message.ts';
import { sessionModel, type SessionDoc } from '../models/session.ts';
import { systemEventModel, type SystemEventDoc } from '../models/system-event.ts';
import { parseSessionId, sessionKey } from './keys.ts';
import { toMessage, toSummary, toSystemEvent } from './views.ts';

/** The caller's session by its id, or 404 (an id of another organization is simply not found). */
export async function findSession(deps: SessionDeps, orgId: string, rawId: string): Promise<SessionDoc> {
  const id = parseSessionId(rawId);
  const doc = id ? await sessionModel(deps.db).findById(sessionKey(orgId, id)).lean<SessionDoc>() : null;
  if (!doc) throw new NotFoundError('Session not found');
  return doc;
}

/** Messages with position > after, in order: one range of the `_id` index. */
export async function messagesPage(deps: SessionDeps, s: SessionDoc, after: number, limit: number) {
  const docs = await messageModel(deps.db)
    .find({
      _id: { $gt: messageKey(s._id, after), $lte: `${s._id}:m:${'9'.repeat(positionWidth)}` },
      orgId: s.orgId,
    })
    .sort({ _id: 1 })
    .limit(limit)
    .lean<MessageDoc[]>();
  const last = docs[docs.length - 1];
  return { items: docs.map(toMessage), nextAfter: docs.length === limit && last ? last.position : null };
}

/** System events oldest first, paged by (timestamp, _id). */
export async function eventsPage(
  deps: SessionDeps,
  s: SessionDoc,
  cursor: string | undefined,
  limit: number,
) {
  const filter: Record<string, unknown> = { orgId: s.orgId, sessionId: s.sessionId };
  if (cursor) {
    const { v, id } = decodeCursor(cursor);
    const at = new Date(String(v));
    if (Number.isNaN(at.getTime())) {
      throw new ValidationError([
        { field: 'cursor', message: 'is not a cursor of this list', location: 'query' },
      ]);
    }
    filter.$or = [{ timestamp: { $gt: at } }, { timestamp: at, _id: { $gt: id } }];
  }
  const docs = await systemEventModel(deps.db)
    .find(filter)
    .sort({ timestamp: 1, _id: 1 })
    .limit(limit)
    .lean<SystemEventDoc[]>();
  const last = docs[docs.length - 1];
  return {
    items: docs.map(toSystemEvent),
    nextCursor:
      docs.length === limit && last ? encodeCursor({ v: last.timestamp.toISOString(), id: last._id }) : null,
  };
}

export async function getSession(
  deps: SessionDeps,
  orgId: string,
  rawId: string,
  limits: { messagesLimit: number; eventsLimit: number },
): Promise<SessionDetail> {
  const s = await findSession(deps, orgId, rawId);
  const [messages, events] = await Promise.all([
    messagesPage(deps, s, 0, limits.messagesLimit),
    eventsPage(deps, s, undefined, limits.eventsLimit),
  ]);
  return {
    ...toSummary(s),
    messages: messages.items,
    messagesNextAfter: messages.nextAfter,
    systemEvents: events.items,
    systemEventsNextCursor: events.nextCursor,
  };
}
