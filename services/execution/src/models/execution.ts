import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';
import type {
  ExecutionError,
  ExecutionStatus,
  ExecutionTrigger,
  StepError,
  StepStatus,
  StepType,
} from '@platform/contracts';

/**
 * One execution: the workflow version it runs (steps as JSON), its state, each step's state and its
 * log. Inputs, outputs and step definitions are JSON strings: clients choose their keys, and
 * FerretDB refuses field names with `.` or a leading `$`.
 *
 * One writer at a time: the creator, then only the replica holding the execution's work message
 * (see engine/runner.ts). FerretDB applies an update to the document it read, so two writers could
 * lose each other's changes; the single writer makes that impossible.
 */
export interface StepStateDoc {
  id: string;
  type: StepType;
  name?: string;
  status: StepStatus;
  attempts: number;
  startedAt?: Date;
  finishedAt?: Date;
  outputJson?: string;
  error?: StepError;
  resumeAt?: Date;
  childExecutionId?: string;
  reusedFrom?: string;
  /** The step that follows this one, decided when it succeeded (conditions choose). */
  next?: string;
}

export interface LogLineDoc {
  seq: number;
  at: Date;
  level: 'debug' | 'info' | 'warn' | 'error';
  stepId?: string;
  attempt?: number;
  message: string;
  dataJson?: string;
}

export interface ExecutionDoc {
  _id: string;
  orgId: string;
  workflowId: string;
  workflowName: string;
  workflowVersion: number;
  stepsJson: string;
  timeoutMs?: number;
  concurrencyLimit?: number;
  status: ExecutionStatus;
  trigger: ExecutionTrigger;
  inputJson: string;
  outputJson?: string;
  error?: ExecutionError;
  steps: StepStateDoc[];
  currentStepId?: string;
  createdAt: Date;
  startedAt?: Date;
  finishedAt?: Date;
  deadlineAt?: Date;
  cancelRequestedAt?: Date;
  retryOf?: string;
  retriedBy: string[];
  /** Concurrency slot held while running (models/slot.ts). */
  slotId?: string;
  logs: LogLineDoc[];
  logSeq: number;
  logsDropped: number;
}

const stepSchema = new Schema<StepStateDoc>(
  {
    id: { type: String, required: true },
    type: { type: String, required: true },
    name: String,
    status: { type: String, required: true },
    attempts: { type: Number, default: 0 },
    startedAt: Date,
    finishedAt: Date,
    outputJson: String,
    error: { type: Schema.Types.Mixed },
    resumeAt: Date,
    childExecutionId: String,
    reusedFrom: String,
    next: String,
  },
  { _id: false },
);

const logSchema = new Schema<LogLineDoc>(
  {
    seq: Number,
    at: Date,
    level: String,
    stepId: String,
    attempt: Number,
    message: String,
    dataJson: String,
  },
  { _id: false },
);

const schema = new Schema<ExecutionDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    workflowId: { type: String, required: true },
    workflowName: { type: String, required: true },
    workflowVersion: { type: Number, required: true },
    stepsJson: { type: String, required: true },
    timeoutMs: Number,
    concurrencyLimit: Number,
    status: { type: String, required: true },
    trigger: { type: Schema.Types.Mixed, required: true },
    inputJson: { type: String, required: true },
    outputJson: String,
    error: { type: Schema.Types.Mixed },
    steps: { type: [stepSchema], default: [] },
    currentStepId: String,
    createdAt: { type: Date, required: true },
    startedAt: Date,
    finishedAt: Date,
    deadlineAt: Date,
    cancelRequestedAt: Date,
    retryOf: String,
    retriedBy: { type: [String], default: [] },
    slotId: String,
    // Logs are read only by GET /logs; lists and the engine leave them out.
    logs: { type: [logSchema], default: [], select: false },
    logSeq: { type: Number, default: 0 },
    logsDropped: { type: Number, default: 0 },
  },
  { versionKey: false, minimize: false },
);
// GET /executions: an organization's executions newest first, optionally by workflow or status.
schema.index({ orgId: 1, createdAt: -1, _id: -1 });
schema.index({ orgId: 1, workflowId: 1, createdAt: -1, _id: -1 });
schema.index({ orgId: 1, status: 1, createdAt: -1, _id: -1 });
// The retention job deletes finished executions older than the retention age.
schema.index({ finishedAt: 1 });

export function executionModel(conn: Connection) {
  return modelOn<ExecutionDoc>(conn, 'Execution', schema, 'executions');
}
