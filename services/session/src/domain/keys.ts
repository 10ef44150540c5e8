import { ValidationError } from '@platform/kit';
import { SessionId } from '@platform/contracts';
import type { SessionDeps } from '../deps.ts';

/**
 * `_id` of a session document: `<orgId>:<sessionId>`. Every read by id goes through this, so a
 * caller can only ever address its own organization's sessions.
 */
export function sessionKey(orgId: string, sessionId: string): string {
  return `${orgId}:${sessionId}`;
}

/** A session id from a path: UUID v4, case-insensitive; anything else cannot exist (→ 404 by caller). */
export function parseSessionId(raw: string): string | undefined {
  const parsed = SessionId.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** The session id of a resume point (`after`), which must be a UUID. */
export function requireSessionId(raw: string, field: string): string {
  const id = parseSessionId(raw);
  if (!id) throw new ValidationError([{ field, message: 'must be a session id (UUID)', location: 'query' }]);
  return id;
}

/** Runs the writes of one session one at a time in this process (see keyed-lock.ts). */
export function withSessionLock<T>(
  deps: SessionDeps,
  orgId: string,
  sessionId: string,
  work: () => Promise<T>,
) {
  return deps.locks.run(`session:${sessionKey(orgId, sessionId)}`, work);
}
