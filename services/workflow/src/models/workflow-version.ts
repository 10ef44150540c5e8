import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/** Every version of a workflow as it was saved (`<workflowId>:<version>`); never changed. */
export interface WorkflowVersionDoc {
  _id: string;
  orgId: string;
  workflowId: string;
  version: number;
  name: string;
  stepsJson: string;
  timeoutMs?: number;
  concurrencyLimit?: number;
  createdAt: Date;
}

const schema = new Schema<WorkflowVersionDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    workflowId: { type: String, required: true },
    version: { type: Number, required: true },
    name: { type: String, required: true },
    stepsJson: { type: String, required: true },
    timeoutMs: Number,
    concurrencyLimit: Number,
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// Versions of a workflow in order (read by id `<workflowId>:<version>` on the hot path).
schema.index({ orgId: 1, workflowId: 1, version: -1 });

export function workflowVersionModel(conn: Connection) {
  return modelOn<WorkflowVersionDoc>(conn, 'WorkflowVersion', schema, 'workflow_versions');
}

export const versionIdOf = (workflowId: string, version: number) => `${workflowId}:${version}`;
