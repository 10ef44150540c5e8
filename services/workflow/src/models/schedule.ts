import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * Active schedule triggers, one per workflow (`_id` = workflow id), kept apart from the workflows so
 * the scheduler's scan (every second, every replica) reads only these.
 */
export interface ScheduleDoc {
  _id: string;
  orgId: string;
  cron: string;
  timezone: string;
  inputJson: string;
  nextRunAt: Date;
}

const schema = new Schema<ScheduleDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    cron: { type: String, required: true },
    timezone: { type: String, required: true },
    inputJson: { type: String, required: true },
    nextRunAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// The scheduler's query: schedules due now (system-wide).
schema.index({ nextRunAt: 1 });

export function scheduleModel(conn: Connection) {
  return modelOn<ScheduleDoc>(conn, 'Schedule', schema, 'schedules');
}

/**
 * One document per tick that was claimed (`<workflowId>:<tick ms>`): the unique insert decides
 * which replica starts the tick's execution. Kept a while, then purged.
 */
export interface ScheduleTickDoc {
  _id: string;
  orgId: string;
  workflowId: string;
  tick: Date;
  executionId: string;
  status: 'claimed' | 'started';
  claimedAt: Date;
}

const tickSchema = new Schema<ScheduleTickDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    workflowId: { type: String, required: true },
    tick: { type: Date, required: true },
    executionId: { type: String, required: true },
    status: { type: String, required: true },
    claimedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// Recovery of ticks claimed by a replica that died before starting them, and the purge.
tickSchema.index({ status: 1, claimedAt: 1 });

export function scheduleTickModel(conn: Connection) {
  return modelOn<ScheduleTickDoc>(conn, 'ScheduleTick', tickSchema, 'schedule_ticks');
}
