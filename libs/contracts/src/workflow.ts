import { z } from './zod.ts';
import { defineRoute } from './http.ts';
import { defineRpc } from './subjects.ts';
import { defineDomainEvent } from './events.ts';
import { Id, IdParams, PageQuery, pageOf } from './common.ts';

/**
 * Workflows: definitions (name, trigger, steps), their versions and triggers. docs/workflows.md
 * explains the step shapes, the expression language, triggers and the engine.
 */

// ---- steps ----

/** Step ids are referenced from expressions (`steps.fetch.output`), so they are JSONata names. */
export const StepId = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be 1-64 letters, digits or _, not starting with a digit');

/** A step to go to, or `$end` to finish the execution successfully. */
export const StepRef = z.union([StepId, z.literal('$end')]);

export const StepType = z.enum([
  'http',
  'transform',
  'condition',
  'delay',
  'agent',
  'integration',
  'workflow',
]);
export type StepType = z.infer<typeof StepType>;

/** Why a step attempt failed; retry policies name the kinds not to retry. */
export const StepErrorKind = z
  .enum([
    'http_client_error',
    'http_server_error',
    'network',
    'timeout',
    'unavailable',
    'address_not_allowed',
    'expression',
    'invalid_settings',
    'output_too_large',
    'not_found',
    'unauthorized',
    'remote_error',
    'child_failed',
    'cancelled',
    'internal',
  ])
  .openapi('StepErrorKind');
export type StepErrorKind = z.infer<typeof StepErrorKind>;

export const RetryPolicy = z
  .object({
    maxAttempts: z.number().int().min(1).max(100).optional().openapi({ description: 'Default 3' }),
    initialIntervalMs: z
      .number()
      .int()
      .min(0)
      .max(86_400_000)
      .optional()
      .openapi({ description: 'Default 1000' }),
    backoffCoefficient: z.number().min(1).max(10).optional().openapi({ description: 'Default 2' }),
    maxIntervalMs: z
      .number()
      .int()
      .min(0)
      .max(86_400_000)
      .optional()
      .openapi({ description: 'Default 100 × initialIntervalMs' }),
    jitter: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .openapi({ description: 'Fraction of ± randomness, default 0.1' }),
    nonRetryable: z.array(StepErrorKind).max(20).optional().openapi({
      description:
        'Error kinds not retried (replaces the default list: http_client_error, address_not_allowed, not_found, unauthorized, child_failed)',
    }),
  })
  .strict()
  .openapi('RetryPolicy');
export type RetryPolicy = z.infer<typeof RetryPolicy>;

/** A string that may hold `{{ expression }}` parts (JSONata over {input, steps, execution}). */
const Template = z.string().max(20_000);
const Expression = z.string().min(1).max(20_000);
const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'must be an HTTP header name');

const HttpSettings = z
  .object({
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).default('GET'),
    url: Template.min(1).openapi({
      description: 'Absolute http(s) URL; with `connectionId`, a path under the connection’s base URL',
    }),
    headers: z.record(HeaderName, Template).optional(),
    query: z.record(z.string().min(1).max(200), Template).optional(),
    body: z.unknown().optional().openapi({ description: 'JSON value; strings in it are templates' }),
    connectionId: Id.optional().openapi({
      description: 'Send through this connection of the `http` integration (its credentials are added)',
    }),
    failOnHttpError: z.boolean().default(true).openapi({ description: 'A non-2xx answer fails the step' }),
  })
  .strict();

const TransformSettings = z.object({ expression: Expression }).strict();

const ConditionSettings = z
  .object({
    branches: z
      .array(z.object({ when: Expression, next: StepRef }).strict())
      .min(1)
      .max(20),
    otherwise: StepRef.optional().openapi({ description: 'Default: the following step' }),
  })
  .strict();

const maxDelayMs = 30 * 86_400_000;
const DelaySettings = z
  .object({
    durationMs: z.number().int().min(0).max(maxDelayMs).optional(),
    until: Template.optional().openapi({ description: 'ISO 8601 time (may be a template)' }),
  })
  .strict()
  .refine((s) => (s.durationMs === undefined) !== (s.until === undefined), {
    message: 'give exactly one of durationMs and until',
  });

const AgentSettings = z
  .object({
    agentId: Id,
    message: Template.min(1),
    sessionId: Template.optional().openapi({ description: 'Continue this session (may be a template)' }),
  })
  .strict();

const IntegrationSettings = z
  .object({
    connectionId: Id,
    action: z.string().min(1).max(100),
    input: z.unknown().optional().openapi({ description: 'JSON value; strings in it are templates' }),
  })
  .strict();

const WorkflowStepSettings = z
  .object({
    workflowId: Id,
    input: z.unknown().optional().openapi({ description: 'JSON value; strings in it are templates' }),
  })
  .strict();

const stepBase = {
  id: StepId,
  name: z.string().trim().min(1).max(200).optional(),
  retry: RetryPolicy.optional(),
  timeoutMs: z.number().int().min(100).max(maxDelayMs).optional(),
  next: StepRef.optional().openapi({
    description: 'Step to run after this one (default: the following one)',
  }),
};

export const Step = z
  .discriminatedUnion('type', [
    z.object({ ...stepBase, type: z.literal('http'), settings: HttpSettings }).strict(),
    z.object({ ...stepBase, type: z.literal('transform'), settings: TransformSettings }).strict(),
    z.object({ ...stepBase, type: z.literal('condition'), settings: ConditionSettings }).strict(),
    z.object({ ...stepBase, type: z.literal('delay'), settings: DelaySettings }).strict(),
    z.object({ ...stepBase, type: z.literal('agent'), settings: AgentSettings }).strict(),
    z.object({ ...stepBase, type: z.literal('integration'), settings: IntegrationSettings }).strict(),
    z.object({ ...stepBase, type: z.literal('workflow'), settings: WorkflowStepSettings }).strict(),
  ])
  .openapi('Step');
export type Step = z.infer<typeof Step>;

/**
 * Unique ids, and every jump (`next`, branches) names a LATER step or `$end`: the flow is acyclic,
 * so each step runs at most once per execution and its stored result identifies it.
 */
export const Steps = z
  .array(Step)
  .min(1)
  .max(100)
  .superRefine((steps, ctx) => {
    const index = new Map<string, number>();
    steps.forEach((s, i) => {
      if (index.has(s.id))
        ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate step id "${s.id}"` });
      else index.set(s.id, i);
    });
    const check = (from: number, ref: string | undefined, path: (string | number)[]) => {
      if (ref === undefined || ref === '$end') return;
      const to = index.get(ref);
      if (to === undefined) ctx.addIssue({ code: 'custom', path, message: `no step has the id "${ref}"` });
      else if (to <= from)
        ctx.addIssue({ code: 'custom', path, message: `must name a later step (got "${ref}")` });
    };
    steps.forEach((s, i) => {
      check(i, s.next, [i, 'next']);
      if (s.type === 'condition') {
        s.settings.branches.forEach((b, j) => check(i, b.next, [i, 'settings', 'branches', j, 'next']));
        check(i, s.settings.otherwise, [i, 'settings', 'otherwise']);
      }
    });
  });

// ---- triggers ----

export const TriggerKind = z.enum(['manual', 'webhook', 'schedule', 'event']).openapi('TriggerKind');
export type TriggerKind = z.infer<typeof TriggerKind>;

export const ScheduleTriggerConfig = z
  .object({
    cron: z.string().min(1).max(200).openapi({ description: '5 fields, or 6 with seconds first' }),
    timezone: z
      .string()
      .min(1)
      .max(64)
      .default('UTC')
      .openapi({ description: 'IANA zone, e.g. Europe/Paris' }),
    input: z.unknown().optional().openapi({ description: 'Input of every scheduled execution' }),
  })
  .strict();

const Scalar = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);
export const EventTriggerConfig = z
  .object({
    type: z
      .string()
      .regex(/^[a-z][a-z0-9_-]*\.[a-z][a-z0-9_-]*$/, 'must be an event type such as session.completed')
      .openapi({ description: 'Event type, e.g. `session.completed`, `execution.failed`' }),
    where: z.record(z.string().min(1).max(200), Scalar).optional().openapi({
      description: 'Dotted paths into the event (e.g. `data.agentId`) and the values they must equal',
    }),
  })
  .strict();

export const WebhookTriggerConfig = z.object({}).strict();
export const ManualTriggerConfig = z.object({}).strict();

export const triggerConfigSchemas = {
  manual: ManualTriggerConfig,
  webhook: WebhookTriggerConfig,
  schedule: ScheduleTriggerConfig,
  event: EventTriggerConfig,
} as const;

// ---- workflow resource ----

const WorkflowFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).optional(),
  trigger: TriggerKind,
  triggerConfig: z
    .record(z.string(), z.unknown())
    .optional()
    .openapi({ description: 'Options of the trigger: schedule {cron, timezone}, event {type, where}' }),
  steps: Steps,
  active: z.boolean().default(true).openapi({ description: 'Inactive workflows run only through execute' }),
  timeoutMs: z
    .number()
    .int()
    .min(1000)
    .max(maxDelayMs)
    .optional()
    .openapi({ description: 'Execution timeout from its start; default 7 days' }),
  concurrencyLimit: z.number().int().min(1).max(1000).optional().openapi({
    description: 'Executions of this workflow running at once; more wait queued. Default unlimited',
  }),
};

/** The trigger options are checked against the trigger kind, with errors at `triggerConfig.<field>`. */
function withTriggerConfig<T extends z.ZodObject>(schema: T) {
  return schema.superRefine((value, ctx) => {
    const v = value as { trigger: TriggerKind; triggerConfig?: unknown };
    const result = triggerConfigSchemas[v.trigger].safeParse(v.triggerConfig ?? {});
    if (!result.success) {
      for (const issue of result.error.issues) {
        ctx.addIssue({ ...issue, path: ['triggerConfig', ...issue.path] } as never);
      }
    }
  });
}

export const CreateWorkflowBody = withTriggerConfig(z.object(WorkflowFields).strict());
export type CreateWorkflowBody = z.infer<typeof CreateWorkflowBody>;

export const UpdateWorkflowBody = withTriggerConfig(
  z
    .object({
      ...WorkflowFields,
      rotateWebhookSecret: z.boolean().optional().openapi({ description: 'Issue a new webhook secret' }),
    })
    .strict(),
);
export type UpdateWorkflowBody = z.infer<typeof UpdateWorkflowBody>;

export const Workflow = z
  .object({
    id: Id,
    name: z.string(),
    description: z.string().optional(),
    trigger: TriggerKind,
    triggerConfig: z.record(z.string(), z.unknown()),
    steps: z.array(Step),
    active: z.boolean(),
    version: z.number().int().openapi({ description: 'Grows by one on every update' }),
    timeoutMs: z.number().int().optional(),
    concurrencyLimit: z.number().int().optional(),
    webhook: z
      .object({
        url: z.string(),
        secret: z
          .string()
          .optional()
          .openapi({ description: 'Shown only when created or rotated; keep it, it is not shown again' }),
      })
      .optional(),
    nextRunAt: z.string().optional().openapi({ description: 'Next tick of a schedule trigger' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Workflow');
export type Workflow = z.infer<typeof Workflow>;

export const WorkflowListQuery = PageQuery.extend({
  search: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: 'Case-insensitive match on the name' }),
  trigger: TriggerKind.optional(),
  active: z.enum(['true', 'false']).optional(),
});

export const ExecuteBody = z
  .object({ input: z.unknown().optional().openapi({ description: 'Any JSON value; default {}' }) })
  .strict();

/** What a workflow version looks like to the engine; executions keep it as they ran it. */
export const WorkflowSnapshot = z.object({
  workflowId: Id,
  name: z.string(),
  version: z.number().int().min(1),
  steps: z.array(Step),
  timeoutMs: z.number().int().optional(),
  concurrencyLimit: z.number().int().optional(),
});
export type WorkflowSnapshot = z.infer<typeof WorkflowSnapshot>;

export const HookParams = z.object({ workflowId: Id });
export const HookAccepted = z
  .object({
    executionId: Id,
    workflowId: Id,
    status: z.string(),
    replayed: z.boolean().openapi({ description: 'True when an Idempotency-Key matched an earlier call' }),
  })
  .openapi('HookAccepted');
export type HookAccepted = z.infer<typeof HookAccepted>;

/** `POST /workflows/{id}/execute` answers an execution, so it is defined in execution.ts. */
export const workflowRoutes = {
  list: defineRoute({
    service: 'workflow',
    method: 'get',
    path: '/api/v1/workflows',
    summary: 'List workflows',
    tag: 'Workflows',
    access: 'authenticated',
    query: WorkflowListQuery,
    success: { status: 200, schema: pageOf(Workflow) },
  }),
  create: defineRoute({
    service: 'workflow',
    method: 'post',
    path: '/api/v1/workflows',
    summary: 'Create a workflow',
    tag: 'Workflows',
    access: 'authenticated',
    body: CreateWorkflowBody,
    success: { status: 201, schema: Workflow },
    errors: [403, 409],
  }),
  get: defineRoute({
    service: 'workflow',
    method: 'get',
    path: '/api/v1/workflows/{id}',
    summary: 'Get a workflow',
    tag: 'Workflows',
    access: 'authenticated',
    params: IdParams,
    success: { status: 200, schema: Workflow },
    errors: [404],
  }),
  update: defineRoute({
    service: 'workflow',
    method: 'put',
    path: '/api/v1/workflows/{id}',
    summary: 'Update a workflow (a new version)',
    tag: 'Workflows',
    access: 'authenticated',
    params: IdParams,
    body: UpdateWorkflowBody,
    success: { status: 200, schema: Workflow },
    errors: [403, 404],
  }),
  remove: defineRoute({
    service: 'workflow',
    method: 'delete',
    path: '/api/v1/workflows/{id}',
    summary: 'Delete a workflow (running executions finish; new ones are refused)',
    tag: 'Workflows',
    access: 'authenticated',
    params: IdParams,
    success: { status: 204, description: 'Deleted' },
    errors: [403, 404],
  }),
  hook: defineRoute({
    service: 'workflow',
    method: 'post',
    path: '/api/v1/hooks/{workflowId}',
    summary:
      'Webhook trigger: no bearer token; `X-Signature-256: sha256=<hex HMAC-SHA256 of the body>` or `X-Webhook-Token`',
    tag: 'Workflows',
    access: 'public',
    params: HookParams,
    success: { status: 202, schema: HookAccepted },
    errors: [401, 404, 409, 413, 415],
  }),
};

export const workflowRpc = {
  /** A version of a workflow (the latest without `version`); not_found when deleted. */
  getDefinition: defineRpc(
    'svc.workflow.get-definition',
    z.object({ orgId: Id, workflowId: Id, version: z.number().int().min(1).optional() }),
    WorkflowSnapshot,
  ),
};

const WorkflowEventData = z.object({
  workflowId: Id,
  name: z.string(),
  version: z.number().int(),
  trigger: TriggerKind,
});
export const workflowEvents = {
  created: defineDomainEvent('workflow.created', WorkflowEventData),
  updated: defineDomainEvent('workflow.updated', WorkflowEventData),
  deleted: defineDomainEvent('workflow.deleted', WorkflowEventData),
};
