import {
  sessionIngest,
  type SessionEndCommand,
  type SessionEventCommand,
  type SessionMessageCommand,
  type SessionStartCommand,
} from '@platform/contracts';
import type { PendingCommand } from '../models/conversation.ts';

/**
 * Session commands with deterministic ids: a command retried (by a relay, a second replica, a crash
 * and restart) carries the same id, so JetStream stores it once within its duplicate window and the
 * session service ignores it beyond. Payloads are validated here, when they are queued.
 */
type Omit2<T> = Omit<T, 'id'>;

export const subjectOf: Record<PendingCommand['kind'], string> = {
  start: sessionIngest.agent.start.subject,
  message: sessionIngest.agent.message.subject,
  event: sessionIngest.agent.event.subject,
  end: sessionIngest.agent.end.subject,
};

function pending(kind: PendingCommand['kind'], id: string, payload: object): PendingCommand {
  return { id, kind, payload: JSON.stringify({ id, ...payload }), at: new Date() };
}

export function startCommand(input: Omit2<SessionStartCommand>): PendingCommand {
  const id = `${input.sessionId}:start`;
  return pending('start', id, sessionIngest.agent.start.payload.parse({ id, ...input }));
}

export function messageCommand(input: Omit2<SessionMessageCommand>): PendingCommand {
  const id = `${input.sessionId}:m:${input.position}`;
  return pending('message', id, sessionIngest.agent.message.payload.parse({ id, ...input }));
}

/** `number` is the session's event counter (this service numbers its events). */
export function eventCommand(input: Omit2<SessionEventCommand>, number: number): PendingCommand {
  const id = `${input.sessionId}:e:${number}`;
  return pending('event', id, sessionIngest.agent.event.payload.parse({ id, ...input }));
}

export function endCommand(input: Omit2<SessionEndCommand>): PendingCommand {
  const id = `${input.sessionId}:end`;
  return pending('end', id, sessionIngest.agent.end.payload.parse({ id, ...input }));
}

/** Event details are flat (string, number, boolean, null; strings up to 1000 characters). */
export function eventDetails(details: Record<string, string | number | boolean | null | undefined>) {
  const out: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(details)) {
    if (value === undefined) continue;
    out[key] = typeof value === 'string' ? value.slice(0, 1000) : value;
  }
  return out;
}
