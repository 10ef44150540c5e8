import type { SessionMessage, SessionSummary, SessionSystemEvent } from '@platform/contracts';
import type { MessageDoc } from '../models/message.ts';
import type { SessionDoc } from '../models/session.ts';
import type { SystemEventDoc } from '../models/system-event.ts';

/** Minutes with two decimals; the wire form of `duration` for ended sessions. */
export function durationMinutes(ms: number): number {
  return Math.round(ms / 600) / 100;
}

export function durationDisplay(doc: Pick<SessionDoc, 'status' | 'durationMs'>): string {
  if (doc.status === 'Active' || doc.durationMs === undefined) return 'Ongoing';
  return `${Math.round(doc.durationMs / 6_000) / 10} min`;
}

export function toSummary(doc: SessionDoc): SessionSummary {
  const ended = doc.status !== 'Active' && doc.endTime !== undefined;
  return {
    id: doc.sessionId,
    agentId: doc.agentId,
    agentName: doc.agentName,
    agentVersion: doc.agentVersion,
    channel: doc.channel,
    sessionType: doc.sessionType,
    status: doc.status,
    startTime: doc.startTime.toISOString(),
    ...(ended ? { endTime: doc.endTime!.toISOString() } : {}),
    duration: ended && doc.durationMs !== undefined ? durationMinutes(doc.durationMs) : null,
    durationDisplay: durationDisplay(doc),
    ...(doc.endReason ? { endReason: doc.endReason } : {}),
    messageCount: doc.messageCount ?? 0,
    metadata: doc.metadata ?? {},
  };
}

export function toMessage(doc: MessageDoc): SessionMessage {
  return {
    position: doc.position,
    sender: doc.sender,
    content: doc.content,
    timestamp: doc.timestamp.toISOString(),
  };
}

export function toSystemEvent(doc: SystemEventDoc): SessionSystemEvent {
  return {
    id: doc.key,
    type: doc.type as SessionSystemEvent['type'],
    timestamp: doc.timestamp.toISOString(),
    details: doc.details ?? {},
  };
}
