import type { AgentTool, ToolCallRecord } from '@platform/contracts';
import type { Logger } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import type { ChatTool, ModelToolCall } from '../providers/types.ts';
import { handoffParameters, runHandoffTool, type Handoff } from './handoff-tool.ts';
import { runIntegrationTool } from './integration-tool.ts';
import { runWorkflowTool } from './workflow-tool.ts';

/** What a tool runs for: the organization, the session and turn (ids of the calls it makes). */
export interface ToolContext {
  deps: AgentDeps;
  orgId: string;
  sessionId: string;
  turn: number;
  log: Logger;
  requestId: string;
  /** The agent answering this turn and the session's channel and type (what a handoff checks). */
  session: { agentId: string; agentVersion: number; channel: string; sessionType: string };
  /** A handoff already happened in this turn (a second one is refused). */
  handedOff?: boolean;
}

export interface ToolOutcome {
  record: ToolCallRecord;
  /** The tool message the model reads next (JSON text). */
  content: string;
  /** The agent's end_session tool was called. */
  end?: { status: 'Completed' | 'Cancelled'; reason: string };
  /** The agent's handoff tool was called and the target takes the session over. */
  handoff?: Handoff;
}

const anyObject = { type: 'object', additionalProperties: true };

const endSessionParameters = {
  type: 'object',
  properties: {
    reason: { type: 'string', description: 'Why the conversation ends' },
    status: { type: 'string', enum: ['completed', 'cancelled'], description: 'Default completed' },
  },
  additionalProperties: false,
};

/** Strips the JSON Schema dialect marker, which some providers refuse in function parameters. */
function parametersOf(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!schema) return anyObject;
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

/**
 * The function definitions offered to the model. An integration action without its own description or
 * parameters takes the action's from the catalog; if the catalog cannot be reached the tool is still
 * offered, with a generic definition, rather than failing the turn.
 */
export async function toolDefinitions(ctx: ToolContext, tools: AgentTool[]): Promise<ChatTool[]> {
  return Promise.all(
    tools.map(async (tool): Promise<ChatTool> => {
      if (tool.type === 'end_session') {
        const description = tool.description ?? 'End the conversation when the user is done or asks to stop.';
        return {
          type: 'function',
          function: { name: tool.name, description, parameters: endSessionParameters },
        };
      }
      if (tool.type === 'handoff') {
        const description =
          tool.description ?? 'Hand the conversation over to another agent better suited to it.';
        return {
          type: 'function',
          function: { name: tool.name, description, parameters: handoffParameters },
        };
      }
      if (tool.type === 'workflow') {
        return {
          type: 'function',
          function: {
            name: tool.name,
            description: tool.description,
            parameters: parametersOf(tool.parameters),
          },
        };
      }
      let description = tool.description;
      let parameters = tool.parameters;
      if (!description || !parameters) {
        const action = await ctx.deps.catalog
          .action(ctx.orgId, tool.connectionId, tool.action, ctx.requestId)
          .catch((err: Error) => {
            ctx.log.warn(
              { err: err.message, tool: tool.name },
              'integration catalog unavailable for a tool definition',
            );
            return undefined;
          });
        description ??= action?.description ?? `Runs the ${tool.action} action`;
        parameters ??= action?.input;
      }
      return {
        type: 'function',
        function: { name: tool.name, description, parameters: parametersOf(parameters) },
      };
    }),
  );
}

function parseArguments(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (!text.trim()) return { ok: true, value: {} };
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value))
      return { ok: true, value: value as Record<string, unknown> };
    return { ok: false, error: 'the arguments must be a JSON object' };
  } catch {
    return { ok: false, error: 'the arguments are not valid JSON' };
  }
}

/**
 * Runs one tool call. A failing tool does not fail the turn: its error goes back to the model (which
 * can tell the user or try otherwise) and into the response's `toolCalls`.
 */
export async function runTool(
  ctx: ToolContext,
  tools: AgentTool[],
  call: ModelToolCall,
): Promise<ToolOutcome> {
  const started = performance.now();
  const tool = tools.find((t) => t.name === call.name);
  const args = parseArguments(call.arguments);
  const base = { id: call.id, name: call.name, type: tool?.type ?? ('unknown' as const) };
  const done = (
    outcome: { output?: unknown; error?: string },
    more: Pick<ToolOutcome, 'end' | 'handoff'> = {},
  ): ToolOutcome => ({
    record: {
      ...base,
      arguments: args.ok ? args.value : call.arguments,
      ...outcome,
      durationMs: Math.round(performance.now() - started),
    },
    content: JSON.stringify(
      outcome.error !== undefined ? { error: outcome.error } : (outcome.output ?? null),
    ),
    ...more,
  });
  if (!tool) return done({ error: `there is no tool named ${call.name}` });
  if (!args.ok) return done({ error: args.error });
  try {
    switch (tool.type) {
      case 'end_session': {
        const status = args.value.status === 'cancelled' ? 'Cancelled' : 'Completed';
        const reason =
          typeof args.value.reason === 'string' && args.value.reason
            ? args.value.reason
            : 'ended by the agent';
        return done({ output: { ended: true, status } }, { end: { status, reason: reason.slice(0, 500) } });
      }
      case 'handoff': {
        const { output, handoff } = await runHandoffTool(ctx, tool, args.value);
        return done({ output }, { handoff });
      }
      case 'integration_action':
        return done({ output: await runIntegrationTool(ctx, tool, args.value, call.id) });
      case 'workflow':
        return done({ output: await runWorkflowTool(ctx, tool, args.value, call.id) });
    }
  } catch (err) {
    ctx.log.warn({ err: (err as Error).message, tool: tool.name }, 'tool call failed');
    return done({ error: (err as Error).message.slice(0, 1000) });
  }
}
