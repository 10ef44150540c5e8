import type { Execution, ExecutionLogLine, ExecutionStep, ExecutionSummary } from '@platform/contracts';
import type { ExecutionDoc, LogLineDoc, StepStateDoc } from '../models/execution.ts';

const iso = (d: Date | undefined) => (d ? new Date(d).toISOString() : undefined);
const parse = (json: string | undefined) => (json === undefined ? undefined : (JSON.parse(json) as unknown));

function toStep(s: StepStateDoc): ExecutionStep {
  const started = s.startedAt ? new Date(s.startedAt).getTime() : undefined;
  const finished = s.finishedAt ? new Date(s.finishedAt).getTime() : undefined;
  return {
    id: s.id,
    ...(s.name ? { name: s.name } : {}),
    type: s.type,
    status: s.status,
    attempts: s.attempts,
    ...(s.startedAt ? { startedAt: iso(s.startedAt) } : {}),
    ...(s.finishedAt ? { finishedAt: iso(s.finishedAt) } : {}),
    ...(started !== undefined && finished !== undefined ? { durationMs: finished - started } : {}),
    ...(s.outputJson !== undefined ? { output: parse(s.outputJson) } : {}),
    ...(s.error ? { error: s.error } : {}),
    ...(s.resumeAt && (s.status === 'waiting' || s.status === 'retrying')
      ? { resumeAt: iso(s.resumeAt) }
      : {}),
    ...(s.childExecutionId ? { childExecutionId: s.childExecutionId } : {}),
    ...(s.reusedFrom ? { reusedFrom: s.reusedFrom } : {}),
  };
}

export function toSummary(doc: ExecutionDoc, cancelRequested = false): ExecutionSummary {
  return {
    id: doc._id,
    workflowId: doc.workflowId,
    workflowName: doc.workflowName,
    workflowVersion: doc.workflowVersion,
    status: doc.status,
    trigger: doc.trigger,
    ...(doc.error ? { error: doc.error } : {}),
    cancelRequested: cancelRequested || doc.cancelRequestedAt !== undefined,
    ...(doc.retryOf ? { retryOf: doc.retryOf } : {}),
    retriedBy: doc.retriedBy ?? [],
    createdAt: iso(doc.createdAt)!,
    ...(doc.startedAt ? { startedAt: iso(doc.startedAt) } : {}),
    ...(doc.finishedAt ? { finishedAt: iso(doc.finishedAt) } : {}),
    ...(doc.finishedAt && doc.startedAt
      ? { durationMs: new Date(doc.finishedAt).getTime() - new Date(doc.startedAt).getTime() }
      : {}),
  };
}

export function toExecution(doc: ExecutionDoc, cancelRequested = false): Execution {
  return {
    ...toSummary(doc, cancelRequested),
    input: parse(doc.inputJson) ?? null,
    ...(doc.outputJson !== undefined ? { output: parse(doc.outputJson) } : {}),
    steps: doc.steps.map(toStep),
  };
}

export function toLogLine(l: LogLineDoc): ExecutionLogLine {
  return {
    seq: l.seq,
    timestamp: iso(l.at)!,
    level: l.level,
    ...(l.stepId ? { stepId: l.stepId } : {}),
    ...(l.attempt ? { attempt: l.attempt } : {}),
    message: l.message,
    ...(l.dataJson ? { data: parse(l.dataJson) } : {}),
  };
}
