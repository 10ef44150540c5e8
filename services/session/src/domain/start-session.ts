import type { z } from 'zod';
import type { SessionStartCommand } from '@platform/contracts';
import type { SessionDeps } from '../deps.ts';
import { sessionModel, type SessionDoc } from '../models/session.ts';
import { sessionKey, withSessionLock } from './keys.ts';
import { searchTermsOf } from './search-terms.ts';
import { settle } from './settle.ts';

type StartInput = z.infer<typeof SessionStartCommand>;

/**
 * Creates an Active session from a start command. The insert is keyed by `<orgId>:<sessionId>`, so a
 * redelivered command finds the session already there and only re-runs the (idempotent) settle step;
 * the first start wins if two differ. A start time later than now is taken as now.
 */
export function startSession(deps: SessionDeps, cmd: StartInput, source: string, requestId?: string) {
  return withSessionLock(deps, cmd.orgId, cmd.sessionId, () => start(deps, cmd, source, requestId));
}

async function start(
  deps: SessionDeps,
  cmd: StartInput,
  source: string,
  requestId?: string,
): Promise<SessionDoc> {
  const now = deps.now();
  const startTime = cmd.startTime ? new Date(Math.min(Date.parse(cmd.startTime), now.getTime())) : now;
  const doc: SessionDoc = {
    _id: sessionKey(cmd.orgId, cmd.sessionId),
    orgId: cmd.orgId,
    sessionId: cmd.sessionId,
    agentId: cmd.agentId,
    agentName: cmd.agentName,
    agentVersion: cmd.agentVersion,
    channel: cmd.channel,
    sessionType: cmd.sessionType,
    status: 'Active',
    startTime,
    metadata: cmd.metadata,
    searchTerms: searchTermsOf({
      sessionId: cmd.sessionId,
      agentName: cmd.agentName,
      metadata: cmd.metadata,
    }),
    messageCount: 0,
    source,
    createdAt: now,
    updatedAt: now,
  };
  const sessions = sessionModel(deps.db);
  let session = doc;
  try {
    await sessions.collection.insertOne(doc as never);
  } catch (err) {
    if ((err as { code?: number }).code !== 11000) throw err;
    const existing = await sessions.findById(doc._id).lean<SessionDoc>();
    if (!existing) throw err;
    session = existing;
  }
  await settle(deps, session, requestId);
  return session;
}
