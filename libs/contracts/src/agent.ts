import { z } from './zod.ts';
import { defineRoute } from './http.ts';
import { defineDomainEvent } from './events.ts';
import { Id, IdParams, PageQuery, pageOf } from './common.ts';
import {
  SessionChannel,
  SessionId,
  SessionMessage,
  SessionMetadata,
  SessionStatus,
  SessionType,
} from './session.ts';

/**
 * AI agents: definitions with versions, model providers (the built-in deterministic `local` one, or an
 * OpenAI-compatible connection of the integration service), tools, and invocation (one conversational
 * turn, answered as JSON or streamed as server-sent events). docs/agents.md describes every field, the
 * local provider's rules, tool calling, the streaming wire format and the bookkeeping guarantees.
 */

const ToolName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 of A-Z a-z 0-9 _ -')
  .openapi({ description: 'Function name the model calls (OpenAI function-name rules)' });

/** A JSON Schema object; stored as text, so keys such as `$schema` are fine. At most 16 KB. */
export const JsonSchemaDoc = z
  .record(z.string(), z.unknown())
  .refine((v) => JSON.stringify(v).length <= 16_384, 'must be at most 16 KB as JSON')
  .openapi({ description: 'A JSON Schema (object) describing the arguments' });

const Keyword = z.string().trim().min(1).max(200);

/** One rule of the local provider; the first rule whose `match` fits the user's message answers. */
export const LocalRule = z
  .object({
    name: z.string().max(100).optional().openapi({ description: 'A label, shown in logs and errors' }),
    match: z
      .object({
        any: z.array(Keyword).max(50).optional().openapi({ description: 'Message contains one of these' }),
        all: z.array(Keyword).max(50).optional().openapi({ description: 'Message contains all of these' }),
        exact: z.string().trim().max(1000).optional().openapi({ description: 'Message equals this' }),
      })
      .strict()
      .optional()
      .openapi({ description: 'Case-insensitive; every condition given must hold; absent: always matches' }),
    reply: z.string().max(8000).optional().openapi({
      description:
        'Template of the answer: {{message}}, {{agentName}}, {{turn}}, {{toolOutput}} and {{toolOutput.field}} after a tool call',
    }),
    tool: z
      .object({
        name: ToolName,
        arguments: z
          .record(z.string(), z.unknown())
          .default({})
          .openapi({ description: 'String values are templates ({{message}}…)' }),
      })
      .strict()
      .optional()
      .openapi({ description: 'Call this tool first; `reply` is then rendered with its output' }),
    error: z.string().max(500).optional().openapi({
      description: 'Fail like a broken model provider (for tests and demos of the failure path)',
    }),
  })
  .strict()
  .refine((r) => r.reply !== undefined || r.tool !== undefined || r.error !== undefined, {
    message: 'a rule needs at least one of reply, tool, error',
  });
export type LocalRule = z.infer<typeof LocalRule>;

export const LocalProvider = z
  .object({
    kind: z.literal('local'),
    rules: z.array(LocalRule).max(200).default([]),
    fallback: z
      .string()
      .max(8000)
      .default("I'm sorry, I did not understand that. Could you rephrase?")
      .openapi({ description: 'Answer (a template) when no rule matches' }),
  })
  .strict()
  .openapi('LocalProvider', {
    description: 'Built-in deterministic provider: no network, answers from rules (docs/agents.md)',
  });

export const OpenAiProvider = z
  .object({
    kind: z.literal('openai'),
    connectionId: Id.openapi({ description: 'A connection to the `openai` integration' }),
  })
  .strict()
  .openapi('OpenAiProvider', { description: 'OpenAI-compatible chat completions through a connection' });

export const ModelProvider = z.discriminatedUnion('kind', [LocalProvider, OpenAiProvider]);
export type ModelProvider = z.infer<typeof ModelProvider>;

const ToolTimeout = (fallback: number) =>
  z.number().int().min(1).max(600).default(fallback).openapi({ description: 'Seconds the tool may take' });

export const WorkflowTool = z
  .object({
    type: z.literal('workflow'),
    name: ToolName,
    description: z.string().trim().min(1).max(1000),
    workflowId: Id,
    parameters: JsonSchemaDoc.optional().openapi({ description: 'Arguments schema (default: any object)' }),
    timeoutSeconds: ToolTimeout(60),
  })
  .strict()
  .openapi('WorkflowTool', { description: 'Runs a workflow with the arguments as input and waits for it' });

export const IntegrationActionTool = z
  .object({
    type: z.literal('integration_action'),
    name: ToolName,
    description: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: "Default: the action's own description" }),
    connectionId: Id,
    action: z.string().min(1).max(100).openapi({ description: 'An action of the connection’s integration' }),
    parameters: JsonSchemaDoc.optional().openapi({ description: "Default: the action's input schema" }),
    timeoutSeconds: ToolTimeout(30),
  })
  .strict()
  .openapi('IntegrationActionTool', { description: 'Calls an action of an integration connection' });

export const EndSessionTool = z
  .object({
    type: z.literal('end_session'),
    name: ToolName.default('end_session'),
    description: z.string().trim().min(1).max(1000).optional(),
  })
  .strict()
  .openapi('EndSessionTool', { description: 'Lets the agent close the conversation' });

export const HandoffTool = z
  .object({
    type: z.literal('handoff'),
    name: ToolName.default('handoff'),
    agentId: Id.openapi({
      description: 'The agent that takes the conversation over (same organization, not archived)',
    }),
    description: z.string().trim().min(1).max(1000).optional(),
  })
  .strict()
  .openapi('HandoffTool', {
    description:
      'Hands the conversation to another agent: later turns of the session are answered by it (arguments {reason?})',
  });

export const AgentTool = z.discriminatedUnion('type', [
  WorkflowTool,
  IntegrationActionTool,
  EndSessionTool,
  HandoffTool,
]);
export type AgentTool = z.infer<typeof AgentTool>;

/** The settings of an agent (without defaults: PUT uses them as they are). */
const fields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000),
  provider: ModelProvider,
  model: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .nullable()
    .openapi({ description: "Model name; null: the connection's defaultModel (ignored by `local`)" }),
  systemPrompt: z.string().max(32_000),
  temperature: z.number().min(0).max(2),
  maxTokens: z.number().int().min(1).max(128_000).openapi({ description: 'Per model call' }),
  greeting: z
    .string()
    .max(4000)
    .nullable()
    .openapi({ description: 'First agent message of every new session (before the user message)' }),
  channels: z
    .array(SessionChannel)
    .min(1)
    .max(6)
    .openapi({ description: 'Channels the agent may be invoked on' }),
  sessionTypes: z
    .array(SessionType)
    .min(1)
    .max(3)
    .openapi({ description: 'Session types the agent accepts' }),
  idleTimeoutSeconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 86_400)
    .openapi({ description: 'An Active session without a turn for this long is Completed' }),
  tools: z.array(AgentTool).max(32),
  maxTurns: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .openapi({ description: 'Turns per session; the session is Completed after the last one' }),
  maxToolRounds: z
    .number()
    .int()
    .min(0)
    .max(20)
    .openapi({ description: 'Rounds of tool calls within one turn before the model must answer' }),
};

/** Cross-field rules: tool names unique, tools that local rules call exist, one end_session tool at most. */
function checkConfig(config: { tools?: AgentTool[]; provider?: ModelProvider }, ctx: z.RefinementCtx) {
  const tools = config.tools ?? [];
  const seen = new Set<string>();
  tools.forEach((tool, i) => {
    if (seen.has(tool.name)) {
      ctx.addIssue({ code: 'custom', path: ['tools', i, 'name'], message: `"${tool.name}" is used twice` });
    }
    seen.add(tool.name);
  });
  if (tools.filter((t) => t.type === 'end_session').length > 1) {
    ctx.addIssue({ code: 'custom', path: ['tools'], message: 'has more than one end_session tool' });
  }
  if (config.provider?.kind !== 'local') return;
  config.provider.rules.forEach((rule, i) => {
    if (rule.tool && !seen.has(rule.tool.name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['provider', 'rules', i, 'tool', 'name'],
        message: `"${rule.tool.name}" is not one of the agent's tools`,
      });
    }
  });
}

/** The whole configuration, with the default of every field but the name. */
export const AgentConfig = z
  .object({
    name: fields.name,
    description: fields.description.default(''),
    provider: fields.provider
      .default(() => LocalProvider.parse({ kind: 'local' }))
      .openapi({ description: 'Default: the local provider without rules (answers its fallback)' }),
    model: fields.model.default(null),
    systemPrompt: fields.systemPrompt.default(''),
    temperature: fields.temperature.default(0.7),
    maxTokens: fields.maxTokens.default(1024),
    greeting: fields.greeting.default(null),
    channels: fields.channels
      .default(() => [...SessionChannel.options])
      .openapi({ description: 'Default: all' }),
    sessionTypes: fields.sessionTypes.default(['chat']),
    idleTimeoutSeconds: fields.idleTimeoutSeconds.default(1800),
    tools: fields.tools.default([]),
    maxTurns: fields.maxTurns.default(100),
    maxToolRounds: fields.maxToolRounds.default(5),
  })
  .strict()
  .superRefine(checkConfig);
export type AgentConfig = z.infer<typeof AgentConfig>;

export const CreateAgentBody = AgentConfig;

export const UpdateAgentBody = z
  .object(fields)
  .partial()
  .extend({
    expectedVersion: z
      .number()
      .int()
      .min(1)
      .optional()
      .openapi({ description: 'Refuse with 409 unless the agent is still at this version' }),
  })
  .strict()
  .openapi({
    description: 'The settings to change; fields left out keep their values. Every change is a new version',
  });
export type UpdateAgentBody = z.infer<typeof UpdateAgentBody>;

export const AgentStatus = z.enum(['active', 'archived']);

const Timestamp = z.string().openapi({ description: 'ISO 8601 UTC' });

export const Agent = z
  .object({
    id: Id,
    ...fields,
    version: z.number().int().openapi({ description: 'Current version; each update adds one' }),
    status: AgentStatus,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    archivedAt: Timestamp.nullable(),
  })
  .openapi('Agent');
export type Agent = z.infer<typeof Agent>;

export const AgentSummary = z
  .object({
    id: Id,
    name: z.string(),
    description: z.string(),
    providerKind: z.enum(['local', 'openai']),
    model: z.string().nullable(),
    channels: z.array(SessionChannel),
    toolCount: z.number().int(),
    version: z.number().int(),
    status: AgentStatus,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('AgentSummary');
export type AgentSummary = z.infer<typeof AgentSummary>;

export const AgentListQuery = PageQuery.extend({
  search: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'Case-insensitive part of the name' }),
  status: AgentStatus.optional().openapi({ description: 'Default: both' }),
});

export const AgentVersion = z
  .object({
    agentId: Id,
    version: z.number().int(),
    createdAt: Timestamp,
    createdBy: z.string(),
    config: Agent.omit({
      id: true,
      version: true,
      status: true,
      createdAt: true,
      updatedAt: true,
      archivedAt: true,
    }),
  })
  .openapi('AgentVersion');

export const AgentVersionSummary = AgentVersion.omit({ config: true }).openapi('AgentVersionSummary');

export const AgentVersionParams = z.object({ id: Id, version: z.coerce.number().int().min(1) });

// ---- invocation ----

export const InvokeBody = z
  .object({
    message: z.string().trim().min(1).max(16_000),
    sessionId: SessionId.optional().openapi({
      description: 'Continue this session; absent: start a new one',
    }),
    channel: SessionChannel.optional().openapi({
      description: 'Required to start a session; when continuing, must be the session’s channel if given',
    }),
    sessionType: SessionType.optional().openapi({ description: 'Default chat; only when starting' }),
    metadata: SessionMetadata.optional().openapi({
      description: 'Attached to a new session (not when continuing)',
    }),
    stream: z
      .boolean()
      .default(false)
      .openapi({ description: 'Answer as server-sent events (also Accept: text/event-stream)' }),
  })
  .strict();
export type InvokeBody = z.infer<typeof InvokeBody>;

export const ToolCallRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(['workflow', 'integration_action', 'end_session', 'handoff', 'unknown']),
    arguments: z.unknown(),
    output: z.unknown().optional(),
    error: z.string().optional(),
    durationMs: z.number(),
  })
  .openapi('ToolCall');
export type ToolCallRecord = z.infer<typeof ToolCallRecord>;

export const Usage = z
  .object({
    promptTokens: z.number().int(),
    completionTokens: z.number().int(),
    totalTokens: z.number().int(),
    modelCalls: z.number().int(),
  })
  .openapi('Usage');
export type Usage = z.infer<typeof Usage>;

export const InvokeResult = z
  .object({
    sessionId: z.string(),
    agentId: Id.openapi({
      description:
        'The agent that answers the session from now on (after a handoff in this turn: the target)',
    }),
    agentVersion: z.number().int().openapi({ description: 'The version of that agent the session talks to' }),
    turn: z.number().int().openapi({ description: 'This turn’s number in the session, from 1' }),
    reply: z.string(),
    messages: z.array(SessionMessage).openapi({ description: 'Messages this turn added, in order' }),
    toolCalls: z.array(ToolCallRecord),
    usage: Usage,
    sessionStatus: SessionStatus.openapi({ description: 'Active, or how the turn ended the session' }),
    endReason: z.string().nullable(),
  })
  .openapi('InvokeResult');
export type InvokeResult = z.infer<typeof InvokeResult>;

export const AgentSessionParams = z.object({ id: Id, sessionId: SessionId });

export const EndAgentSessionBody = z
  .object({
    status: z.enum(['completed', 'cancelled']),
    reason: z.string().trim().max(500).optional(),
  })
  .strict();

export const EndAgentSessionResult = z
  .object({
    sessionId: z.string(),
    status: z.enum(['Completed', 'Cancelled']),
    reason: z.string().nullable(),
    endedAt: Timestamp,
  })
  .openapi('EndAgentSessionResult');

/** Names of the server-sent events of a streamed invocation (docs/agents.md has their data). */
export const invokeStreamEvents = [
  'session',
  'message',
  'delta',
  'tool_call',
  'tool_result',
  'done',
  'error',
] as const;

const common = { service: 'agent', tag: 'Agents', access: 'authenticated' } as const;

export const agentRoutes = {
  list: defineRoute({
    ...common,
    method: 'get',
    path: '/api/v1/agents',
    summary: 'List agents, newest first (search by name)',
    query: AgentListQuery,
    success: { status: 200, schema: pageOf(AgentSummary) },
    errors: [400],
  }),
  create: defineRoute({
    ...common,
    method: 'post',
    path: '/api/v1/agents',
    summary: 'Create an agent (version 1; honours Idempotency-Key)',
    body: CreateAgentBody,
    success: { status: 201, schema: Agent },
    errors: [400, 403, 409],
  }),
  get: defineRoute({
    ...common,
    method: 'get',
    path: '/api/v1/agents/{id}',
    summary: 'Get the whole configuration of an agent',
    params: IdParams,
    success: { status: 200, schema: Agent },
    errors: [404],
  }),
  update: defineRoute({
    ...common,
    method: 'put',
    path: '/api/v1/agents/{id}',
    summary: 'Update the settings of an agent (a new version; new sessions use it)',
    params: IdParams,
    body: UpdateAgentBody,
    success: { status: 200, schema: Agent },
    errors: [400, 403, 404, 409],
  }),
  archive: defineRoute({
    ...common,
    method: 'post',
    path: '/api/v1/agents/{id}/archive',
    summary: 'Archive an agent: it refuses new sessions; its sessions stay readable',
    params: IdParams,
    success: { status: 200, schema: Agent },
    errors: [403, 404],
  }),
  versions: defineRoute({
    ...common,
    method: 'get',
    path: '/api/v1/agents/{id}/versions',
    summary: 'List the versions of an agent, newest first',
    params: IdParams,
    query: PageQuery,
    success: { status: 200, schema: pageOf(AgentVersionSummary) },
    errors: [400, 404],
  }),
  version: defineRoute({
    ...common,
    method: 'get',
    path: '/api/v1/agents/{id}/versions/{version}',
    summary: 'Get the configuration of one version of an agent',
    params: AgentVersionParams,
    success: { status: 200, schema: AgentVersion },
    errors: [400, 404],
  }),
  invoke: defineRoute({
    ...common,
    method: 'post',
    path: '/api/v1/agents/{id}/invoke',
    summary: 'Invoke the agent: one turn of a conversation (starts a session without sessionId)',
    params: IdParams,
    body: InvokeBody,
    success: {
      status: 200,
      schema: InvokeResult,
      description:
        'JSON; with stream: true or Accept: text/event-stream, server-sent events session, message, delta, tool_call, tool_result, then done (the same JSON) or error',
    },
    errors: [400, 403, 404, 409, 502, 504],
  }),
  endSession: defineRoute({
    ...common,
    method: 'post',
    path: '/api/v1/agents/{id}/sessions/{sessionId}/end',
    summary: 'End a conversation of this agent as completed or cancelled',
    params: AgentSessionParams,
    body: EndAgentSessionBody,
    success: { status: 200, schema: EndAgentSessionResult },
    errors: [400, 403, 404, 409],
  }),
};

const AgentEventData = z.object({
  agentId: Id,
  name: z.string(),
  version: z.number().int(),
  status: AgentStatus,
});

export const agentEvents = {
  created: defineDomainEvent('agent.created', AgentEventData),
  /** A new version, or the agent was archived. */
  updated: defineDomainEvent('agent.updated', AgentEventData),
};
