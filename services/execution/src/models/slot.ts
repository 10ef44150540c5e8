import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * Concurrency slots of a workflow: `<orgId>:<workflowId>:<n>` for n below its limit. Taking one is a
 * unique insert, the one operation FerretDB makes atomic between replicas; the running execution
 * deletes its slot when it finishes, and housekeeping frees slots of executions that are gone.
 */
export interface SlotDoc {
  _id: string;
  orgId: string;
  workflowId: string;
  executionId: string;
  acquiredAt: Date;
}

const schema = new Schema<SlotDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    workflowId: { type: String, required: true },
    executionId: { type: String, required: true },
    acquiredAt: { type: Date, required: true },
  },
  { versionKey: false },
);

export function slotModel(conn: Connection) {
  return modelOn<SlotDoc>(conn, 'Slot', schema, 'concurrency_slots');
}

export const slotIdOf = (orgId: string, workflowId: string, n: number) => `${orgId}:${workflowId}:${n}`;
