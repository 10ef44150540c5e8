import type { z } from 'zod';
import type { SessionEventCommand } from '@platform/contracts';
import type { SessionDeps } from '../deps.ts';
import { sessionModel } from '../models/session.ts';
import { systemEventKey, systemEventModel } from '../models/system-event.ts';
import { SessionNotStartedError } from './add-message.ts';
import { sessionKey } from './keys.ts';

type EventInput = z.infer<typeof SessionEventCommand>;

/** Records a system event reported by a publisher; its command id is its key, so a redelivery adds nothing. */
export async function addSystemEvent(deps: SessionDeps, cmd: EventInput, source: string): Promise<void> {
  const key = sessionKey(cmd.orgId, cmd.sessionId);
  if (!(await sessionModel(deps.db).exists({ _id: key }))) throw new SessionNotStartedError(cmd.sessionId);
  try {
    await systemEventModel(deps.db).collection.insertOne({
      _id: systemEventKey(key, `c-${cmd.id}`),
      orgId: cmd.orgId,
      sessionId: cmd.sessionId,
      key: `c-${cmd.id}`,
      type: cmd.type,
      timestamp: new Date(cmd.timestamp),
      details: { ...cmd.details, source },
    } as never);
  } catch (err) {
    if ((err as { code?: number }).code !== 11000) throw err;
  }
}
