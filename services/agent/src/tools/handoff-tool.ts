import type { AgentTool } from '@platform/contracts';
import { NotFoundError } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { findAgent } from '../domain/agents.ts';
import { configOf } from '../domain/views.ts';
import type { AgentDoc } from '../models/agent.ts';
import type { ToolContext } from './toolbox.ts';

type HandoffTool = Extract<AgentTool, { type: 'handoff' }>;

export const handoffParameters = {
  type: 'object',
  properties: {
    reason: { type: 'string', description: 'Why the conversation goes to the other agent' },
  },
  additionalProperties: false,
};

/** A handoff made by a turn: from the agent that answered it to the one that answers the next turns. */
export interface Handoff {
  fromAgentId: string;
  fromVersion: number;
  toAgentId: string;
  /** The target's version when the handoff happened: the session talks to it from then on. */
  toVersion: number;
  toAgentName: string;
  reason: string;
  /** When the tool ran (the system event's timestamp). */
  at: string;
  /** The target's idle timeout (the session's deadline follows the agent that answers it). */
  idleTimeoutSeconds: number;
}

/** The organization's agent, or undefined. */
async function agentOf(deps: AgentDeps, orgId: string, agentId: string): Promise<AgentDoc | undefined> {
  try {
    return await findAgent(deps, orgId, agentId);
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/**
 * Why `agentId` cannot be a handoff target of agent `selfId` (undefined: it can). Checked when an
 * agent is saved, as every other reference is.
 */
export async function handoffTargetProblem(
  deps: AgentDeps,
  orgId: string,
  agentId: string,
  selfId?: string,
): Promise<string | undefined> {
  if (agentId === selfId) return 'is this agent itself';
  const target = await agentOf(deps, orgId, agentId);
  if (!target) return 'is not an agent of this organization';
  if (target.status === 'archived') return 'is an archived agent';
  return undefined;
}

/**
 * The handoff tool: checks again that the target can take the session now (it may have been archived
 * since the agent was saved, or not accept the session's channel or type), then answers the handoff.
 * The turn records it; the session's next turns are the target's. A failure is an ordinary tool error.
 */
export async function runHandoffTool(
  ctx: ToolContext,
  tool: HandoffTool,
  args: Record<string, unknown>,
): Promise<{ output: unknown; handoff: Handoff }> {
  const { session } = ctx;
  if (ctx.handedOff) throw new Error('the conversation was already handed off in this turn');
  if (tool.agentId === session.agentId) throw new Error('the conversation is already with this agent');
  const target = await agentOf(ctx.deps, ctx.orgId, tool.agentId);
  if (!target) throw new Error(`agent ${tool.agentId} does not exist`);
  if (target.status === 'archived') throw new Error(`agent ${target.name} is archived`);
  const config = configOf(target);
  if (!config.channels.includes(session.channel as never))
    throw new Error(`agent ${target.name} does not take ${session.channel} sessions`);
  if (!config.sessionTypes.includes(session.sessionType as never))
    throw new Error(`agent ${target.name} does not take ${session.sessionType} sessions`);
  const reason =
    typeof args.reason === 'string' && args.reason.trim()
      ? args.reason.trim().slice(0, 500)
      : 'handed off by the agent';
  const handoff: Handoff = {
    fromAgentId: session.agentId,
    fromVersion: session.agentVersion,
    toAgentId: target._id,
    toVersion: target.version,
    toAgentName: target.name,
    reason,
    at: ctx.deps.now().toISOString(),
    idleTimeoutSeconds: config.idleTimeoutSeconds,
  };
  const output = {
    handedOff: true,
    agentId: target._id,
    agentName: target.name,
    agentVersion: target.version,
    reason,
    note: `The conversation now continues with ${target.name}: tell the user, briefly; their next message goes to ${target.name}.`,
  };
  return { output, handoff };
}
