import type { z } from 'zod';
import { sessionEvents, type SessionMessageCommand } from '@platform/contracts';
import { publishEvent, UnavailableError } from '@platform/kit';
import type { SessionDeps } from '../deps.ts';
import { messageKey, messageModel, type MessageDoc } from '../models/message.ts';
import { sessionModel, type SessionDoc } from '../models/session.ts';
import { sessionKey, withSessionLock } from './keys.ts';
import { toMessage } from './views.ts';

type MessageInput = z.infer<typeof SessionMessageCommand>;

/** Thrown for a command about a session whose start has not been handled yet: retried with backoff. */
export class SessionNotStartedError extends UnavailableError {
  constructor(sessionId: string) {
    super(`Session ${sessionId} has not started (yet); will retry`, 1);
  }
}

/**
 * Stores one message at the position its sender numbered it. The message's key contains the
 * position, so a redelivery (or a second copy) is refused by the `_id` index and adds nothing; order
 * comes from positions, not from arrival. `messageCount` follows the highest position ($max: never
 * goes back). Messages are accepted after the session ended (late delivery of the last turns).
 */
export function addMessage(deps: SessionDeps, cmd: MessageInput, requestId?: string): Promise<void> {
  return withSessionLock(deps, cmd.orgId, cmd.sessionId, () => add(deps, cmd, requestId));
}

async function add(deps: SessionDeps, cmd: MessageInput, requestId?: string): Promise<void> {
  const key = sessionKey(cmd.orgId, cmd.sessionId);
  const session = await sessionModel(deps.db).findById(key).lean<SessionDoc>();
  if (!session) throw new SessionNotStartedError(cmd.sessionId);
  const doc: MessageDoc = {
    _id: messageKey(key, cmd.position),
    orgId: cmd.orgId,
    sessionId: cmd.sessionId,
    position: cmd.position,
    sender: cmd.sender,
    content: cmd.content,
    timestamp: new Date(cmd.timestamp),
  };
  try {
    await messageModel(deps.db).collection.insertOne(doc as never);
  } catch (err) {
    if ((err as { code?: number }).code !== 11000) throw err;
  }
  if ((session.messageCount ?? 0) < cmd.position) {
    await sessionModel(deps.db).updateOne(
      { _id: key },
      { $max: { messageCount: cmd.position }, $set: { updatedAt: deps.now() } },
    );
  }
  // High-volume event for opt-in webhooks; stable id, re-sent only when the command is redelivered.
  await publishEvent(
    deps.js,
    sessionEvents.message,
    {
      id: `session:${doc._id}`,
      type: 'session.message',
      createdAt: doc.timestamp.toISOString(),
      orgId: cmd.orgId,
      data: { sessionId: cmd.sessionId, agentId: session.agentId, message: toMessage(doc) },
    },
    { requestId },
  );
}
