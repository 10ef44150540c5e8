import { z } from './zod.ts';
import { defineRoute } from './http.ts';
import { defineRpc } from './subjects.ts';
import { defineDomainEvent } from './events.ts';
import { Id, IdParams, PageQuery, pageOf } from './common.ts';

/**
 * The integration service: the catalog of third-party integrations, the connections organizations
 * make to them (credentials encrypted at rest, never returned), and the running of integration
 * actions for workflow steps and agent tools over NATS (`svc.integration.run-action`).
 * docs/integrations.md describes the catalog, the RPC contract and its error kinds.
 */

export const AuthKind = z
  .enum(['none', 'api_key', 'basic', 'bearer', 'oauth2_client_credentials', 'webhook_url'])
  .openapi('AuthKind');
export type AuthKind = z.infer<typeof AuthKind>;

export const IntegrationCategory = z.enum(['http', 'messaging', 'email', 'telephony', 'ai']);
export type IntegrationCategory = z.infer<typeof IntegrationCategory>;

export const JsonSchemaObject = z
  .record(z.string(), z.unknown())
  .openapi({ description: 'A JSON Schema (draft 2020-12), generated from the integration module' });

export const IntegrationAction = z
  .object({
    id: z.string().openapi({ description: 'Action name, e.g. `chat.postMessage`; `action` of run-action' }),
    description: z.string(),
    input: JsonSchemaObject,
    output: JsonSchemaObject,
  })
  .openapi('IntegrationAction');
export type IntegrationAction = z.infer<typeof IntegrationAction>;

export const Integration = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    category: IntegrationCategory,
    authKind: AuthKind.openapi({ description: 'The main auth kind (the first of `authKinds`)' }),
    authKinds: z.array(AuthKind).openapi({
      description:
        'Every auth kind the integration accepts; with more than one, `credentials.authKind` chooses',
    }),
    credentialsSchema: JsonSchemaObject,
    settingsSchema: JsonSchemaObject,
    testable: z.boolean().openapi({
      description: 'Whether credentials are verified with a harmless call to the third party',
    }),
    actions: z.array(IntegrationAction),
  })
  .openapi('Integration');
export type Integration = z.infer<typeof Integration>;

export const IntegrationListQuery = PageQuery.extend({
  category: IntegrationCategory.optional(),
  search: z.string().trim().max(100).optional().openapi({
    description: 'Case-insensitive match on id, name, description and action names (empty: all)',
  }),
});

export const ConnectionStatus = z.enum(['active', 'failing', 'revoked']).openapi({
  description:
    'active: usable; failing: the last test or use failed (see statusReason); revoked: its credentials were erased',
});
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;

/** Settings are not secret (base URLs, sender numbers…): stored in clear and returned. */
export const ConnectionSettings = z.record(z.string(), z.unknown());

export const Connection = z
  .object({
    id: Id,
    integrationId: z.string(),
    name: z.string(),
    authKind: AuthKind,
    settings: ConnectionSettings,
    status: ConnectionStatus,
    statusReason: z.string().nullable(),
    lastTestedAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Connection');
export type Connection = z.infer<typeof Connection>;

const ConnectionName = z.string().trim().min(1).max(120);
const Credentials = z.record(z.string(), z.unknown()).openapi({
  description: "Validated against the integration's credentialsSchema; encrypted at rest, never returned",
});
const Verify = z.boolean().default(true).openapi({
  description: 'Verify the credentials with a test call before saving (when the integration can)',
});

export const CreateConnectionBody = z
  .object({
    integrationId: z.string().min(1).max(64),
    name: ConnectionName,
    credentials: Credentials,
    settings: ConnectionSettings.optional(),
    verify: Verify,
  })
  .strict();

export const UpdateConnectionBody = z
  .object({
    name: ConnectionName.optional(),
    credentials: Credentials.optional().openapi({ description: 'Replaces all the credentials' }),
    settings: ConnectionSettings.optional().openapi({ description: 'Replaces all the settings' }),
    status: z.literal('revoked').optional().openapi({
      description: 'Revoke: erase the credentials; new credentials make the connection usable again',
    }),
    verify: Verify,
  })
  .strict()
  .refine((b) => b.name ?? b.credentials ?? b.settings ?? b.status, {
    message: 'give at least one of name, credentials, settings, status',
  });

export const ConnectionListQuery = PageQuery.extend({
  integrationId: z.string().min(1).max(64).optional(),
  status: ConnectionStatus.optional(),
});

export const ConnectionTestResult = z
  .object({
    ok: z.boolean(),
    verified: z.boolean().openapi({ description: 'False when the integration has no test call' }),
    message: z.string().nullable(),
    durationMs: z.number(),
    connection: Connection,
  })
  .openapi('ConnectionTestResult');

export const integrationRoutes = {
  listIntegrations: defineRoute({
    service: 'integration',
    method: 'get',
    path: '/api/v1/integrations',
    summary: 'List available integrations',
    tag: 'Integrations',
    access: 'authenticated',
    query: IntegrationListQuery,
    success: { status: 200, schema: pageOf(Integration) },
    errors: [400],
  }),
  getIntegration: defineRoute({
    service: 'integration',
    method: 'get',
    path: '/api/v1/integrations/{id}',
    summary: 'Get the details of an integration',
    tag: 'Integrations',
    access: 'authenticated',
    params: IdParams,
    success: { status: 200, schema: Integration },
    errors: [404],
  }),
  createConnection: defineRoute({
    service: 'integration',
    method: 'post',
    path: '/api/v1/connections',
    summary: 'Create an integration connection (honours Idempotency-Key)',
    tag: 'Connections',
    access: 'authenticated',
    body: CreateConnectionBody,
    success: { status: 201, schema: Connection },
    errors: [400, 403, 409],
  }),
  listConnections: defineRoute({
    service: 'integration',
    method: 'get',
    path: '/api/v1/connections',
    summary: 'List connections, newest first',
    tag: 'Connections',
    access: 'authenticated',
    query: ConnectionListQuery,
    success: { status: 200, schema: pageOf(Connection) },
    errors: [400],
  }),
  getConnection: defineRoute({
    service: 'integration',
    method: 'get',
    path: '/api/v1/connections/{id}',
    summary: 'Get a connection (without its credentials)',
    tag: 'Connections',
    access: 'authenticated',
    params: IdParams,
    success: { status: 200, schema: Connection },
    errors: [404],
  }),
  updateConnection: defineRoute({
    service: 'integration',
    method: 'patch',
    path: '/api/v1/connections/{id}',
    summary: 'Rename a connection, replace its credentials or settings, or revoke it',
    tag: 'Connections',
    access: 'authenticated',
    params: IdParams,
    body: UpdateConnectionBody,
    success: { status: 200, schema: Connection },
    errors: [400, 403, 404, 409],
  }),
  deleteConnection: defineRoute({
    service: 'integration',
    method: 'delete',
    path: '/api/v1/connections/{id}',
    summary: 'Delete a connection and its credentials',
    tag: 'Connections',
    access: 'authenticated',
    params: IdParams,
    success: { status: 204, description: 'Deleted' },
    errors: [403, 404],
  }),
  testConnection: defineRoute({
    service: 'integration',
    method: 'post',
    path: '/api/v1/connections/{id}/test',
    summary: "Test a connection's credentials against the third party",
    tag: 'Connections',
    access: 'authenticated',
    params: IdParams,
    success: { status: 200, schema: ConnectionTestResult },
    errors: [403, 404, 409],
  }),
};

// ---- OpenAI-compatible chat completions (the model provider of agents) ----
// Field names are OpenAI's wire names, so any OpenAI-compatible provider's documentation applies.

export const ChatToolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ChatToolCall = z.infer<typeof ChatToolCall>;

export const ChatMessage = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z
    .union([z.string(), z.array(z.looseObject({ type: z.string() }))])
    .nullable()
    .optional(),
  name: z.string().optional(),
  tool_calls: z.array(ChatToolCall).optional(),
  tool_call_id: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ChatTool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().optional(),
  }),
});
export type ChatTool = z.infer<typeof ChatTool>;

/** The body of `POST {baseUrl}/chat/completions` without `stream`; extra provider fields pass through. */
export const ChatCompletionsInput = z.looseObject({
  model: z.string().min(1).optional().openapi({ description: "Defaults to the connection's defaultModel" }),
  messages: z.array(ChatMessage).min(1),
  tools: z.array(ChatTool).optional(),
  tool_choice: z
    .union([
      z.enum(['none', 'auto', 'required']),
      z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
    ])
    .optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  response_format: z.looseObject({ type: z.string() }).optional(),
  seed: z.number().int().optional(),
  user: z.string().optional(),
});
export type ChatCompletionsInput = z.infer<typeof ChatCompletionsInput>;

export const ChatUsage = z.looseObject({
  prompt_tokens: z.number().optional(),
  completion_tokens: z.number().optional(),
  total_tokens: z.number().optional(),
});

export const ChatCompletionsOutput = z.looseObject({
  id: z.string().optional(),
  object: z.string().optional(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.looseObject({
      index: z.number().int(),
      message: ChatMessage,
      finish_reason: z.string().nullable().optional(),
    }),
  ),
  usage: ChatUsage.nullable().optional(),
});
export type ChatCompletionsOutput = z.infer<typeof ChatCompletionsOutput>;

/** One `chat.completion.chunk` of a streamed completion, as the provider sent it. */
export const ChatCompletionChunk = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().int(),
        delta: z.looseObject({}).optional(),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .default([]),
  usage: ChatUsage.nullable().optional(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunk>;

/** What the integration service publishes to `deliverTo` while a chat-stream request runs. */
export const ChatStreamMessage = z.object({ seq: z.number().int().min(0), chunk: ChatCompletionChunk });
export type ChatStreamMessage = z.infer<typeof ChatStreamMessage>;

// ---- NATS ----

const ActionTimeoutMs = z.number().int().min(100).max(300_000).optional().openapi({
  description:
    "Deadline of the whole action; default ACTION_TIMEOUT_MS (30 s). The caller's NATS timeout must be longer",
});
const CallRequestId = z.string().min(1).max(200).optional().openapi({
  description:
    'Id of the logical call (e.g. `<executionId>:<stepId>`), logged and sent as the idempotency key where the third party supports one',
});

export const RunActionRequest = z.object({
  orgId: Id,
  connectionId: Id,
  action: z.string().min(1).max(100),
  input: z.unknown().default({}),
  requestId: CallRequestId,
  timeoutMs: ActionTimeoutMs,
});
export type RunActionRequest = z.infer<typeof RunActionRequest>;

export const RunActionReply = z.object({
  output: z.unknown(),
  connectionId: Id,
  integrationId: z.string(),
  action: z.string(),
  durationMs: z.number(),
});
export type RunActionReply = z.infer<typeof RunActionReply>;

export const ChatStreamRequest = z.object({
  orgId: Id,
  connectionId: Id,
  input: ChatCompletionsInput,
  deliverTo: z
    .string()
    .regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'a NATS subject without wildcards')
    .max(200)
    .openapi({ description: 'Subject (usually an inbox the caller subscribed to) that gets each chunk' }),
  requestId: CallRequestId,
  timeoutMs: ActionTimeoutMs,
});
export type ChatStreamRequest = z.infer<typeof ChatStreamRequest>;

/**
 * Request/reply subjects of the integration service (queue group `integration`). Error replies use
 * the kit's kinds; `retryable` is true exactly for `unavailable` (429, 5xx, network) and `timeout`:
 * - validation: bad input or action, an address refused by the outbound policy, or a 4xx from the
 *   third party that is not about credentials: permanent.
 * - unauthorized: the third party rejected the connection's credentials (the connection turns
 *   `failing`): permanent until someone replaces them.
 * - not_found: no such connection in this organization; conflict: the connection is revoked.
 * - unavailable / timeout: retry later, with backoff.
 */
export const integrationRpc = {
  runAction: defineRpc('svc.integration.run-action', RunActionRequest, RunActionReply),
  /** Streams a chat completion: chunks go to `deliverTo`, the reply is the whole completion. */
  chatStream: defineRpc('svc.integration.chat-stream', ChatStreamRequest, RunActionReply),
  getConnection: defineRpc(
    'svc.integration.get-connection',
    z.object({ orgId: Id, connectionId: Id }),
    Connection,
  ),
  getIntegration: defineRpc('svc.integration.get-integration', z.object({ id: z.string() }), Integration),
};

const ConnectionRef = z.object({ connectionId: Id, integrationId: z.string(), name: z.string() });

export const connectionEvents = {
  created: defineDomainEvent('connection.created', ConnectionRef),
  /** The connection turned failing (a test or a use failed because of it); sent on the transition. */
  failing: defineDomainEvent('connection.failing', ConnectionRef.extend({ reason: z.string() })),
  revoked: defineDomainEvent('connection.revoked', ConnectionRef),
  deleted: defineDomainEvent('connection.deleted', ConnectionRef),
};
