import { z } from './zod.ts';
import { defineRoute } from './http.ts';
import { defineRpc } from './subjects.ts';
import { defineDomainEvent } from './events.ts';
import { Id, IdParams, PageQuery, pageOf } from './common.ts';
import { ExecuteBody, StepErrorKind, StepType, TriggerKind, WorkflowSnapshot } from './workflow.ts';

/**
 * Executions: runs of a workflow version by the execution service's durable engine.
 * States: queued → running → succeeded | failed | cancelled (docs/workflows.md has the diagram).
 */

export const ExecutionStatus = z
  .enum(['queued', 'running', 'succeeded', 'failed', 'cancelled'])
  .openapi('ExecutionStatus');
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;
export const terminalStatuses: readonly ExecutionStatus[] = ['succeeded', 'failed', 'cancelled'];

export const StepStatus = z
  .enum(['pending', 'running', 'waiting', 'retrying', 'succeeded', 'failed', 'skipped', 'cancelled'])
  .openapi({
    description:
      'waiting: a delay or a child workflow; retrying: a failed attempt waits for the next one; skipped: not on the path taken',
  });
export type StepStatus = z.infer<typeof StepStatus>;

export const StepError = z
  .object({
    kind: StepErrorKind,
    message: z.string(),
    status: z.number().int().optional().openapi({ description: 'HTTP status of the failed answer' }),
  })
  .openapi('StepError');
export type StepError = z.infer<typeof StepError>;

export const ExecutionTrigger = z
  .object({
    kind: z.enum([...TriggerKind.options, 'retry', 'workflow']),
    scheduledFor: z.string().optional().openapi({ description: 'schedule: the tick' }),
    eventId: z.string().optional(),
    eventType: z.string().optional(),
    parentExecutionId: Id.optional().openapi({
      description: 'workflow: the execution whose step started it',
    }),
    parentStepId: z.string().optional(),
  })
  .openapi('ExecutionTrigger');
export type ExecutionTrigger = z.infer<typeof ExecutionTrigger>;

export const ExecutionStep = z
  .object({
    id: z.string(),
    name: z.string().optional(),
    type: StepType,
    status: StepStatus,
    attempts: z.number().int(),
    startedAt: z.string().optional(),
    finishedAt: z.string().optional(),
    durationMs: z.number().optional(),
    output: z.unknown().optional(),
    error: StepError.optional(),
    resumeAt: z.string().optional().openapi({ description: 'waiting/retrying: when it goes on' }),
    childExecutionId: Id.optional(),
    reusedFrom: Id.optional().openapi({ description: 'Output taken from this execution by a retry' }),
  })
  .openapi('ExecutionStep');
export type ExecutionStep = z.infer<typeof ExecutionStep>;

export const ExecutionError = z
  .object({ kind: StepErrorKind, message: z.string(), stepId: z.string().optional() })
  .openapi('ExecutionError');
export type ExecutionError = z.infer<typeof ExecutionError>;

const executionFields = {
  id: Id,
  workflowId: Id,
  workflowName: z.string(),
  workflowVersion: z.number().int(),
  status: ExecutionStatus,
  trigger: ExecutionTrigger,
  error: ExecutionError.optional(),
  cancelRequested: z.boolean(),
  retryOf: Id.optional(),
  retriedBy: z.array(Id),
  createdAt: z.string().openapi({ description: 'When it was queued' }),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  durationMs: z.number().optional().openapi({ description: 'From start to finish' }),
};

export const ExecutionSummary = z.object(executionFields).openapi('ExecutionSummary');
export type ExecutionSummary = z.infer<typeof ExecutionSummary>;

export const Execution = z
  .object({
    ...executionFields,
    input: z.unknown(),
    output: z.unknown().optional(),
    steps: z.array(ExecutionStep),
  })
  .openapi('Execution');
export type Execution = z.infer<typeof Execution>;

export const LogLevel = z.enum(['debug', 'info', 'warn', 'error']);
export const ExecutionLogLine = z
  .object({
    seq: z.number().int().openapi({ description: 'Position in the execution’s log, from 1' }),
    timestamp: z.string(),
    level: LogLevel,
    stepId: z.string().optional(),
    attempt: z.number().int().optional(),
    message: z.string(),
    data: z.unknown().optional(),
  })
  .openapi('ExecutionLogLine');
export type ExecutionLogLine = z.infer<typeof ExecutionLogLine>;

const IsoDate = z.string().datetime({ offset: true });
export const ExecutionListQuery = PageQuery.extend({
  workflowId: Id.optional(),
  status: ExecutionStatus.optional(),
  startedFrom: IsoDate.optional().openapi({ description: 'Queued at or after (ISO 8601)' }),
  startedTo: IsoDate.optional().openapi({ description: 'Queued before (ISO 8601)' }),
});

export const ExecutionLogsQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(1000).default(200),
});

export const RetryBody = z
  .object({
    from: z.enum(['failed-step', 'start']).default('failed-step').openapi({
      description: 'failed-step: keep the outputs of the steps that succeeded and go on from the failed one',
    }),
    version: z.enum(['same', 'latest']).default('same'),
  })
  .strict();

export const executionRoutes = {
  list: defineRoute({
    service: 'execution',
    method: 'get',
    path: '/api/v1/executions',
    summary: 'List executions, newest first',
    tag: 'Executions',
    access: 'authenticated',
    query: ExecutionListQuery,
    success: { status: 200, schema: pageOf(ExecutionSummary) },
  }),
  get: defineRoute({
    service: 'execution',
    method: 'get',
    path: '/api/v1/executions/{id}',
    summary: 'Get an execution: status, input, output, error and every step',
    tag: 'Executions',
    access: 'authenticated',
    params: IdParams,
    success: { status: 200, schema: Execution },
    errors: [404],
  }),
  logs: defineRoute({
    service: 'execution',
    method: 'get',
    path: '/api/v1/executions/{id}/logs',
    summary: 'The log lines of every step and attempt, in order',
    tag: 'Executions',
    access: 'authenticated',
    params: IdParams,
    query: ExecutionLogsQuery,
    success: { status: 200, schema: pageOf(ExecutionLogLine) },
    errors: [404],
  }),
  retry: defineRoute({
    service: 'execution',
    method: 'post',
    path: '/api/v1/executions/{id}/retry',
    summary: 'Retry a failed or cancelled execution as a new, linked execution',
    tag: 'Executions',
    access: 'authenticated',
    params: IdParams,
    body: RetryBody,
    success: { status: 202, schema: Execution },
    errors: [403, 404, 409],
  }),
  cancel: defineRoute({
    service: 'execution',
    method: 'post',
    path: '/api/v1/executions/{id}/cancel',
    summary: 'Cancel a queued or running execution',
    tag: 'Executions',
    access: 'authenticated',
    params: IdParams,
    success: { status: 202, schema: Execution },
    errors: [403, 404, 409],
  }),
};

/** Served by the workflow service, but it answers an execution. */
export const executeWorkflowRoute = defineRoute({
  service: 'workflow',
  method: 'post',
  path: '/api/v1/workflows/{id}/execute',
  summary: 'Trigger an execution (Idempotency-Key honoured)',
  tag: 'Workflows',
  access: 'authenticated',
  params: IdParams,
  body: ExecuteBody,
  success: { status: 202, schema: Execution },
  errors: [403, 404, 409],
});

// ---- NATS ----

export const StartExecutionRequest = z.object({
  orgId: Id,
  /** Given by triggers that may fire twice (schedule ticks, events): the same id starts one execution. */
  executionId: Id.optional(),
  workflow: WorkflowSnapshot,
  input: z.unknown().default({}),
  trigger: ExecutionTrigger,
});
export type StartExecutionRequest = z.infer<typeof StartExecutionRequest>;

export const GetExecutionRequest = z.object({ orgId: Id, executionId: Id });
export type GetExecutionRequest = z.infer<typeof GetExecutionRequest>;

export const executionRpc = {
  /** Queues an execution of the given workflow version; answers it (status queued, or later). */
  start: defineRpc('svc.execution.start', StartExecutionRequest, Execution),
  /**
   * Reads an execution of the organization as `GET /executions/{id}` answers it (output and steps
   * included). Unknown, or another organization's: the kit's NotFoundError (`not_found`).
   */
  get: defineRpc('svc.execution.get', GetExecutionRequest, Execution),
};

/** The work queue of the engine: one message per execution for its whole life (`exec.run.<id>`). */
export const executionQueue = {
  stream: 'EXECUTIONS',
  subjects: ['exec.run.>'],
  durable: 'execution-runner',
  runSubject: (executionId: string) => `exec.run.${executionId}`,
} as const;

/**
 * Cancel requests, mirrored in memory by every execution replica from this KV bucket (key: the
 * execution id): the replica running the execution aborts its step in progress, and a replica
 * picking an execution up checks its mirror instead of reading storage. Entries expire after
 * `maxAgeMs`; executions created longer ago than `trustMirrorForMs` read the stored request.
 */
export const executionCancelBucket = {
  name: 'exec_cancels',
  maxAgeMs: 86_400_000,
  trustMirrorForMs: 43_200_000,
} as const;

export const ExecutionCancelEntry = z.object({ orgId: Id, requestedAt: z.string().datetime() });
export type ExecutionCancelEntry = z.infer<typeof ExecutionCancelEntry>;

/** What a new execution is made of; the first work message carries it (see docs/workflows.md). */
export const NewExecution = z.object({
  id: Id,
  orgId: Id,
  workflow: WorkflowSnapshot,
  input: z.unknown(),
  trigger: ExecutionTrigger,
  createdAt: z.string(),
  retryOf: Id.optional(),
  /** A retry from the failed step: outputs of these steps are taken from that execution. */
  reuse: z.object({ fromExecutionId: Id, stepIds: z.array(z.string()) }).optional(),
});
export type NewExecution = z.infer<typeof NewExecution>;

export const ExecutionRunMessage = z.object({ executionId: Id, orgId: Id, create: NewExecution.optional() });
export type ExecutionRunMessage = z.infer<typeof ExecutionRunMessage>;

/**
 * `agent` steps call the agent service: one turn with `message` (in `sessionId`, or a new session).
 * Error replies use the kit kinds: not_found (no such agent), validation (permanent),
 * unavailable/timeout (retryable). Nobody answering is `unavailable` and retried.
 */
export const AgentStepInvokeRequest = z.object({
  orgId: Id,
  agentId: Id,
  message: z.string().min(1).max(16_000),
  sessionId: z.string().max(128).optional(),
  /** Where the call comes from, for the session's metadata and logs. */
  source: z.object({ executionId: Id, workflowId: Id, stepId: z.string() }),
});
export const AgentStepInvokeReply = z.object({
  sessionId: z.string(),
  reply: z.string(),
  output: z.unknown().optional().openapi({ description: 'Structured output, when the agent gives one' }),
});
export const agentStepRpc = {
  invoke: defineRpc('svc.agent.invoke', AgentStepInvokeRequest, AgentStepInvokeReply),
};

const ExecutionEventData = z.object({
  executionId: Id,
  workflowId: Id,
  workflowVersion: z.number().int(),
  status: ExecutionStatus,
  trigger: ExecutionTrigger.shape.kind,
  error: ExecutionError.optional(),
  durationMs: z.number().optional(),
});
export const executionEvents = {
  queued: defineDomainEvent('execution.queued', ExecutionEventData),
  running: defineDomainEvent('execution.running', ExecutionEventData),
  succeeded: defineDomainEvent('execution.succeeded', ExecutionEventData),
  failed: defineDomainEvent('execution.failed', ExecutionEventData),
  cancelled: defineDomainEvent('execution.cancelled', ExecutionEventData),
} as const;
