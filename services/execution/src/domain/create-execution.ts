import { headers as natsHeadersOf } from '@nats-io/transport-node';
import {
  executionQueue,
  natsHeaders,
  type ExecutionRunMessage,
  type NewExecution,
} from '@platform/contracts';
import { UnavailableError, ValidationError } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import { publishTransition } from '../engine/events.ts';
import { executionModel, type ExecutionDoc, type StepStateDoc } from '../models/execution.ts';

/** The work message holds the whole definition (NATS refuses messages over 1 MB). */
const maxMessageBytes = 900_000;

/** The document of a new execution; a retry from the failed step takes the earlier outputs. */
async function buildDoc(deps: ExecutionDeps, spec: NewExecution): Promise<ExecutionDoc> {
  const reused = new Map<string, StepStateDoc>();
  if (spec.reuse) {
    const old = await executionModel(deps.db).findById(spec.reuse.fromExecutionId).lean();
    if (old && old.orgId === spec.orgId) {
      for (const s of old.steps) {
        if (s.status === 'succeeded' && spec.reuse.stepIds.includes(s.id)) {
          reused.set(s.id, { ...s, reusedFrom: s.reusedFrom ?? old._id });
        }
      }
    }
  }
  return newExecutionDoc(spec, reused);
}

/** The document of a new execution as its creator stores it (the runner builds the same one). */
export function newExecutionDoc(
  spec: NewExecution,
  reused: ReadonlyMap<string, StepStateDoc> = new Map(),
): ExecutionDoc {
  return {
    _id: spec.id,
    orgId: spec.orgId,
    workflowId: spec.workflow.workflowId,
    workflowName: spec.workflow.name,
    workflowVersion: spec.workflow.version,
    stepsJson: JSON.stringify(spec.workflow.steps),
    ...(spec.workflow.timeoutMs ? { timeoutMs: spec.workflow.timeoutMs } : {}),
    ...(spec.workflow.concurrencyLimit ? { concurrencyLimit: spec.workflow.concurrencyLimit } : {}),
    status: 'queued',
    trigger: spec.trigger,
    inputJson: JSON.stringify(spec.input ?? {}),
    steps: spec.workflow.steps.map(
      (s) =>
        reused.get(s.id) ?? {
          id: s.id,
          type: s.type,
          ...(s.name ? { name: s.name } : {}),
          status: 'pending',
          attempts: 0,
        },
    ),
    createdAt: new Date(spec.createdAt),
    ...(spec.retryOf ? { retryOf: spec.retryOf } : {}),
    retriedBy: [],
    logs: [],
    logSeq: 0,
    logsDropped: 0,
  };
}

/**
 * Inserts the document unless it exists: a second creator loses the unique insert and reads it.
 * With `keepOwnOnConflict` (an id drawn here, so the only other writer is the runner of this very
 * execution, which stored this same document first) the built document is the answer, unread.
 */
export async function materialize(
  deps: ExecutionDeps,
  spec: NewExecution,
  options: { keepOwnOnConflict?: boolean } = {},
): Promise<{ doc: ExecutionDoc; inserted: boolean }> {
  const doc = await buildDoc(deps, spec);
  try {
    await executionModel(deps.db).collection.insertOne(doc as never, { ignoreUndefined: true });
    return { doc, inserted: true };
  } catch (err) {
    if ((err as { code?: number }).code !== 11000) throw err;
    if (options.keepOwnOnConflict) return { doc, inserted: false };
    const existing = await executionModel(deps.db).findById(spec.id).lean();
    if (!existing) throw err;
    return { doc: existing, inserted: false };
  }
}

/**
 * Queues an execution. The work message goes first (it carries everything needed to create the
 * execution), then the document is inserted: whichever way a crash falls, the execution is not
 * lost, and the message id (the execution id) makes a repeated start a no-op.
 */
export async function startExecution(
  deps: ExecutionDeps,
  spec: NewExecution,
  options: { requestId?: string; freshId?: boolean } = {},
): Promise<ExecutionDoc> {
  // An id the caller chose (schedule tick, event, agent tool call) may have been started before:
  // that start is the answer. An id just drawn at random here cannot exist, which spares a read.
  if (!options.freshId) {
    const existing = await executionModel(deps.db)
      .collection.findOne({ _id: spec.id } as never)
      .then((d) => d as ExecutionDoc | null);
    if (existing) {
      if (existing.orgId !== spec.orgId)
        throw new ValidationError([{ field: 'executionId', message: 'is taken' }]);
      return existing;
    }
  }
  const message: ExecutionRunMessage = { executionId: spec.id, orgId: spec.orgId, create: spec };
  const payload = JSON.stringify(message);
  if (Buffer.byteLength(payload) > maxMessageBytes) {
    throw new ValidationError([
      {
        field: 'input',
        message: `the workflow definition and input together must stay under ${maxMessageBytes} bytes`,
      },
    ]);
  }
  const h = natsHeadersOf();
  if (options.requestId) h.set(natsHeaders.requestId, options.requestId);
  try {
    await deps.js.publish(executionQueue.runSubject(spec.id), payload, {
      msgID: spec.id,
      headers: h,
      timeout: 5_000,
    });
  } catch (err) {
    throw new UnavailableError(`The execution queue is unavailable: ${(err as Error).message}`);
  }
  const { doc, inserted } = await materialize(deps, spec, { keepOwnOnConflict: options.freshId === true });
  // Whoever stored the document announces `queued`: here, or the runner that got there first.
  // (A chosen id found stored announces it again: its first creator may have crashed before.)
  if (!inserted && options.freshId) return doc;
  await publishTransition(deps, doc, 'queued', options.requestId).catch((err: unknown) =>
    deps.logger.warn(
      { err: (err as Error).message, executionId: spec.id },
      'queued event left to the runner',
    ),
  );
  return doc;
}
