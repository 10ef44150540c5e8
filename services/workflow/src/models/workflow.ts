import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';
import type { TriggerKind } from '@platform/contracts';

/**
 * The current version of a workflow. Steps and trigger options are JSON strings: their keys are the
 * client's (header names, bodies) and FerretDB refuses field names with `.` or a leading `$`.
 * A deleted workflow keeps its document with `deletedAt` (running executions may still ask for it).
 */
export interface WorkflowDoc {
  _id: string;
  orgId: string;
  name: string;
  description?: string;
  trigger: TriggerKind;
  triggerConfigJson: string;
  stepsJson: string;
  active: boolean;
  version: number;
  timeoutMs?: number;
  concurrencyLimit?: number;
  /** Webhook trigger: the secret, encrypted (HMAC needs the secret itself, not a hash). */
  webhookSecretSealed?: string;
  createdAt: Date;
  updatedAt: Date;
  deletedAt?: Date | null;
}

const schema = new Schema<WorkflowDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    name: { type: String, required: true },
    description: String,
    trigger: { type: String, required: true },
    triggerConfigJson: { type: String, required: true },
    stepsJson: { type: String, required: true },
    active: { type: Boolean, required: true },
    version: { type: Number, required: true },
    timeoutMs: Number,
    concurrencyLimit: Number,
    webhookSecretSealed: String,
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    deletedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
// GET /workflows: an organization's live workflows newest first, filtered by trigger or active.
schema.index({ orgId: 1, deletedAt: 1, createdAt: -1, _id: -1 });
schema.index({ orgId: 1, deletedAt: 1, trigger: 1, createdAt: -1 });

export function workflowModel(conn: Connection) {
  return modelOn<WorkflowDoc>(conn, 'Workflow', schema, 'workflows');
}
