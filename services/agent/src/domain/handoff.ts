import type { ConversationDoc, PendingCommand } from '../models/conversation.ts';
import { eventCommand, eventDetails } from '../bookkeeping/commands.ts';
import type { Handoff } from '../tools/handoff-tool.ts';

/**
 * Handoffs in a session's record. The session service keeps the agent that started the session
 * (`agentId`, `agentVersion`: no command changes them); this service keeps the agent that answers it
 * now (`currentAgent*`), and the `agent_handoff` system event tells the session service of the change.
 */
type Agents = Pick<
  ConversationDoc,
  'agentId' | 'agentVersion' | 'agentName' | 'currentAgentId' | 'currentAgentVersion' | 'currentAgentName'
>;

/** The agent that answers the session now: the last handoff's target, else the starting agent. */
export function answeringAgent(conv: Agents) {
  return {
    agentId: conv.currentAgentId ?? conv.agentId,
    agentVersion: conv.currentAgentVersion ?? conv.agentVersion,
    agentName: conv.currentAgentName ?? conv.agentName,
  };
}

/**
 * Whether a request addressed to agent `agentId` reaches the session: the agent that started it (what
 * the session service shows, what a client bound to one agent keeps calling) or the one answering it
 * now (what the invoke's answer names). Any other agent, even of the organization, does not.
 */
export function addressedTo(conv: Agents, agentId: string): boolean {
  return conv.agentId === agentId || answeringAgent(conv).agentId === agentId;
}

/** The record's fields once the turn's handoff is done. */
export function handoffSet(handoff: Handoff) {
  return {
    currentAgentId: handoff.toAgentId,
    currentAgentVersion: handoff.toVersion,
    currentAgentName: handoff.toAgentName,
  };
}

/** The `agent_handoff` system event (`number`: the session's event counter). */
export function handoffEvent(
  orgId: string,
  sessionId: string,
  handoff: Handoff,
  number: number,
): PendingCommand {
  const details = eventDetails({
    fromAgentId: handoff.fromAgentId,
    fromVersion: handoff.fromVersion,
    toAgentId: handoff.toAgentId,
    toVersion: handoff.toVersion,
    reason: handoff.reason,
  });
  return eventCommand({ orgId, sessionId, type: 'agent_handoff', timestamp: handoff.at, details }, number);
}
