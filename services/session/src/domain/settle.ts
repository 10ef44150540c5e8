import type { z } from 'zod';
import { sessionEvents, type SessionEventData, type SessionStatus } from '@platform/contracts';
import type { SessionDeps } from '../deps.ts';
import { claim, markModel } from '../models/mark.ts';
import type { SessionDoc } from '../models/session.ts';
import { systemEventKey, systemEventModel } from '../models/system-event.ts';
import { countEnd, countStart } from './counters.ts';
import { durationMinutes } from './views.ts';

const verbOf = {
  Active: 'started',
  Completed: 'completed',
  Failed: 'failed',
  Cancelled: 'cancelled',
} as const satisfies Record<SessionStatus, keyof typeof sessionEvents>;

async function insertIgnoringDuplicate(deps: SessionDeps, doc: Record<string, unknown>) {
  try {
    await systemEventModel(deps.db).collection.insertOne(doc as never);
  } catch (err) {
    if ((err as { code?: number }).code !== 11000) throw err;
  }
}

/**
 * Brings everything that follows from a session's status in line with it: the status-change system
 * events, the metrics counters and the `evt.session.*` events. Every step is keyed (event `_id`,
 * counter claims, outbox event ids), so calling it again (redelivery, retry) adds nothing.
 */
export async function settle(deps: SessionDeps, s: SessionDoc, requestId?: string): Promise<void> {
  await insertIgnoringDuplicate(deps, {
    _id: systemEventKey(s._id, 'status-Active'),
    orgId: s.orgId,
    sessionId: s.sessionId,
    key: 'status-Active',
    type: 'status_change',
    timestamp: s.startTime,
    details: { from: null, to: 'Active', source: s.source },
  });
  if (s.status !== 'Active') {
    await insertIgnoringDuplicate(deps, {
      _id: systemEventKey(s._id, `status-${s.status}`),
      orgId: s.orgId,
      sessionId: s.sessionId,
      key: `status-${s.status}`,
      type: 'status_change',
      timestamp: s.endTime ?? deps.now(),
      details: { from: 'Active', to: s.status, ...(s.endReason ? { reason: s.endReason } : {}) },
    });
  }
  await countStart(deps, s);
  await countEnd(deps, s);
  const data = {
    sessionId: s.sessionId,
    agentId: s.agentId,
    agentName: s.agentName,
    agentVersion: s.agentVersion,
    channel: s.channel,
    sessionType: s.sessionType,
    startTime: s.startTime.toISOString(),
  };
  await publishOnce(deps, s, 'Active', { ...data, status: 'Active', duration: null }, requestId);
  if (s.status !== 'Active') {
    await publishOnce(
      deps,
      s,
      s.status,
      {
        ...data,
        status: s.status,
        endTime: s.endTime?.toISOString(),
        duration: s.durationMs === undefined ? null : durationMinutes(s.durationMs),
        ...(s.endReason ? { reason: s.endReason } : {}),
      },
      requestId,
    );
  }
}

/**
 * At least once, and once unless a crash falls between the outbox write and the mark: the mark
 * `<sessionKey>:pub-<verb>` is written after the event is in the outbox (whose relay sends it if
 * NATS is away), and the event id is stable, so a repeat is recognisable downstream.
 */
async function publishOnce(
  deps: SessionDeps,
  s: SessionDoc,
  status: SessionStatus,
  data: z.input<typeof SessionEventData>,
  requestId: string | undefined,
) {
  const verb = verbOf[status];
  const markId = `${s._id}:pub-${verb}`;
  if (await markModel(deps.db).exists({ _id: markId })) return;
  await deps.outbox.publish(sessionEvents[verb] as typeof sessionEvents.started, s.orgId, data, {
    id: `session:${s._id}:${verb}`,
    requestId,
    createdAt: status === 'Active' ? s.startTime : (s.endTime ?? deps.now()),
  });
  await claim(deps.db, { _id: markId, orgId: s.orgId, createdAt: deps.now() });
}
