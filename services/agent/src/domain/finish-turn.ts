import type { SessionMessage, SessionStatus } from '@platform/contracts';
import type { AgentDeps } from '../deps.ts';
import { endCommand, eventCommand, eventDetails, messageCommand } from '../bookkeeping/commands.ts';
import type { PendingCommand } from '../models/conversation.ts';
import { clientDisconnectionEvent } from './client-disconnection.ts';
import type { TurnLease } from './conversations.ts';
import { handoffEvent, handoffSet } from './handoff.ts';
import type { TurnOutput } from './turn.ts';

export interface Finished {
  status: SessionStatus;
  endReason: string | null;
  agentMessage: SessionMessage;
}

/** What else the turn's final write records. */
export interface FinishOptions {
  /** The streaming client went away before the stream ended: a `disconnection` event. */
  clientGone?: boolean;
}

/** Writes the record with `commands` queued after what is still unpublished, publishes, settles, unlocks. */
async function commit(
  deps: AgentDeps,
  lease: TurnLease,
  set: Record<string, unknown>,
  commands: PendingCommand[],
  requestId: string,
) {
  try {
    await deps.sessionLog.commit(lease.conv, set, [...lease.unpublished, ...commands], requestId);
  } finally {
    await lease.lock.release();
  }
}

/**
 * Ends a turn: the agent's reply (after an error event for each failed tool call, the `agent_handoff`
 * event of a handoff, and the `disconnection` of a streaming client that left), and the end of the
 * session when the agent called end_session or this was the last turn allowed, are queued in the same
 * write that moves the idle deadline, records the agent answering next and stores the model's view of
 * the turn; then published, and the session unlocked.
 */
export async function finishTurn(
  deps: AgentDeps,
  lease: TurnLease,
  output: TurnOutput,
  limits: { maxTurns: number; idleTimeoutSeconds: number; context: string },
  requestId: string,
  options: FinishOptions = {},
): Promise<Finished> {
  const { conv } = lease;
  const { orgId, _id: sessionId } = conv;
  const now = deps.now();
  const at = now.toISOString();
  const commands: PendingCommand[] = [];
  let events = conv.eventCount;
  for (const call of output.toolCalls.filter((c) => c.error !== undefined)) {
    const details = eventDetails({
      component: 'tool',
      tool: call.name,
      toolType: call.type,
      message: call.error,
    });
    commands.push(eventCommand({ orgId, sessionId, type: 'error', timestamp: at, details }, ++events));
  }
  const { handoff } = output;
  if (handoff) commands.push(handoffEvent(orgId, sessionId, handoff, ++events));
  if (options.clientGone) commands.push(clientDisconnectionEvent(orgId, sessionId, at, ++events));
  const agentMessage: SessionMessage = {
    position: conv.lastPosition + 1,
    sender: 'agent',
    content: output.reply,
    timestamp: at,
  };
  commands.push(messageCommand({ orgId, sessionId, ...agentMessage }));
  const turns = lease.turn;
  const idleSeconds = handoff?.idleTimeoutSeconds ?? limits.idleTimeoutSeconds;
  const end =
    output.end ??
    (turns >= limits.maxTurns ? { status: 'Completed' as const, reason: 'max turns reached' } : undefined);
  if (end)
    commands.push(endCommand({ orgId, sessionId, status: end.status, endTime: at, reason: end.reason }));
  await commit(
    deps,
    lease,
    {
      lastPosition: agentMessage.position,
      eventCount: events,
      turns,
      context: limits.context,
      lastActivityAt: now,
      idleDeadline: end ? null : new Date(now.getTime() + idleSeconds * 1000),
      ...(handoff ? handoffSet(handoff) : {}),
      ...(end ? { status: end.status, endReason: end.reason, endedAt: now } : {}),
    },
    commands,
    requestId,
  );
  return { status: end?.status ?? 'Active', endReason: end?.reason ?? null, agentMessage };
}

/** The model provider failed for good: an error event, then the session ends as Failed. */
export async function failTurn(
  deps: AgentDeps,
  lease: TurnLease,
  error: { message: string; kind: string; provider: string },
  requestId: string,
  options: FinishOptions = {},
): Promise<void> {
  const { orgId, _id: sessionId } = lease.conv;
  const now = deps.now();
  const at = now.toISOString();
  const reason = `model provider error: ${error.message}`.slice(0, 500);
  const details = eventDetails({
    component: 'model_provider',
    provider: error.provider,
    kind: error.kind,
    message: error.message,
  });
  let events = lease.conv.eventCount;
  const commands = [eventCommand({ orgId, sessionId, type: 'error', timestamp: at, details }, ++events)];
  if (options.clientGone) commands.push(clientDisconnectionEvent(orgId, sessionId, at, ++events));
  commands.push(endCommand({ orgId, sessionId, status: 'Failed', endTime: at, reason }));
  await commit(
    deps,
    lease,
    { eventCount: events, status: 'Failed', endReason: reason, endedAt: now, idleDeadline: null },
    commands,
    requestId,
  );
}

/**
 * Something unexpected broke the turn (not the model): the session stays Active and is unlocked. What
 * the turn queued stays queued for the relay.
 */
export async function releaseTurn(_deps: AgentDeps, lease: TurnLease): Promise<void> {
  await lease.lock.release();
}
