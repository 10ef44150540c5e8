import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * Active event triggers, one per workflow (`_id` = workflow id). Every replica keeps them all in
 * memory (domain/event-trigger-cache.ts) so matching an event costs no query.
 */
export interface EventTriggerDoc {
  _id: string;
  orgId: string;
  eventType: string;
  whereJson: string;
  /** Events older than this do not start the workflow (history replayed to a new consumer). */
  activeSince: Date;
}

const schema = new Schema<EventTriggerDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    eventType: { type: String, required: true },
    whereJson: { type: String, required: true },
    activeSince: { type: Date, required: true },
  },
  { versionKey: false },
);

export function eventTriggerModel(conn: Connection) {
  return modelOn<EventTriggerDoc>(conn, 'EventTrigger', schema, 'event_triggers');
}
