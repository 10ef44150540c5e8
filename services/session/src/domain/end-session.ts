import type { EndStatus } from '@platform/contracts';
import { ConflictError, NotFoundError } from '@platform/kit';
import type { SessionDeps } from '../deps.ts';
import { claim, markModel, type MarkDoc } from '../models/mark.ts';
import { sessionModel, type SessionDoc } from '../models/session.ts';
import { SessionNotStartedError } from './add-message.ts';
import { sessionKey, withSessionLock } from './keys.ts';
import { settle } from './settle.ts';

export interface EndInput {
  orgId: string;
  sessionId: string;
  status: EndStatus;
  endTime?: string;
  reason?: string;
}

interface EndClaim {
  status: EndStatus;
  endTime: Date;
  reason?: string;
}

export type EndOutcome = { result: 'ended' | 'already'; session: SessionDoc };

/**
 * The only transitions: Active → Completed | Failed | Cancelled. The first end wins through a claim
 * (`<sessionKey>:end`, inserted once); whoever finds a claim not yet applied to the session applies
 * it, so a crash between the two writes heals on the next attempt. Ending with the status the session
 * already has is reported as `already` (a redelivered command); ending with another is refused (409).
 */
export function endSession(
  deps: SessionDeps,
  input: EndInput,
  options: { whenMissing: 'retry' | 'not-found'; requestId?: string },
): Promise<EndOutcome> {
  return withSessionLock(deps, input.orgId, input.sessionId, () => end(deps, input, options));
}

async function end(
  deps: SessionDeps,
  input: EndInput,
  options: { whenMissing: 'retry' | 'not-found'; requestId?: string },
): Promise<EndOutcome> {
  const key = sessionKey(input.orgId, input.sessionId);
  const sessions = sessionModel(deps.db);
  const session = await sessions.findById(key).lean<SessionDoc>();
  if (!session) {
    if (options.whenMissing === 'retry') throw new SessionNotStartedError(input.sessionId);
    throw new NotFoundError('Session not found');
  }
  const now = deps.now();
  const requestedEnd = input.endTime ? Date.parse(input.endTime) : now.getTime();
  const endTime = new Date(Math.min(Math.max(requestedEnd, session.startTime.getTime()), now.getTime()));
  const wanted: EndClaim = {
    status: input.status,
    endTime,
    ...(input.reason ? { reason: input.reason } : {}),
  };
  const won = await claim(deps.db, {
    _id: `${key}:end`,
    orgId: input.orgId,
    createdAt: now,
    data: { ...wanted },
  });
  const decided = won ? wanted : await readClaim(deps, key);

  let current = session;
  let applied = false;
  if (current.status === 'Active') {
    const set = {
      status: decided.status,
      endTime: decided.endTime,
      durationMs: decided.endTime.getTime() - current.startTime.getTime(),
      ...(decided.reason ? { endReason: decided.reason } : {}),
      updatedAt: now,
    };
    await sessions.updateOne({ _id: key }, { $set: set });
    current = { ...current, ...set };
    applied = true;
  }
  await settle(deps, current, options.requestId);
  if (decided.status !== input.status) {
    throw new ConflictError(`The session is ${decided.status}; only an Active session can be ended`);
  }
  return { result: won || applied ? 'ended' : 'already', session: current };
}

async function readClaim(deps: SessionDeps, key: string): Promise<EndClaim> {
  const mark = await markModel(deps.db).findById(`${key}:end`).lean<MarkDoc>();
  const data = (mark?.data ?? {}) as Partial<EndClaim>;
  if (!data.status || !data.endTime) throw new Error(`end claim of ${key} is unreadable`);
  return {
    status: data.status,
    endTime: new Date(data.endTime),
    ...(data.reason ? { reason: data.reason } : {}),
  };
}
