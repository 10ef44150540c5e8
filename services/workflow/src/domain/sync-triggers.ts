import type { WorkflowDeps } from '../deps.ts';
import { eventTriggerModel } from '../models/event-trigger.ts';
import { scheduleModel } from '../models/schedule.ts';
import type { WorkflowDoc } from '../models/workflow.ts';
import { nextTick } from './cron.ts';

/**
 * Keeps the scheduler's and the event matcher's own collections in step with a workflow: present
 * while the workflow is live, active and of that trigger kind; gone otherwise. Returns the next
 * tick of a schedule.
 */
export async function syncTriggers(deps: WorkflowDeps, doc: WorkflowDoc): Promise<Date | undefined> {
  const live = doc.active && !doc.deletedAt;
  const config = JSON.parse(doc.triggerConfigJson) as Record<string, unknown>;
  let nextRunAt: Date | undefined;
  if (live && doc.trigger === 'schedule') {
    const cron = String(config.cron);
    const timezone = String(config.timezone ?? 'UTC');
    nextRunAt = nextTick(cron, timezone, new Date());
    await scheduleModel(deps.db).replaceOne(
      { _id: doc._id },
      {
        _id: doc._id,
        orgId: doc.orgId,
        cron,
        timezone,
        inputJson: JSON.stringify(config.input ?? {}),
        nextRunAt,
      },
      { upsert: true },
    );
  } else {
    await scheduleModel(deps.db).deleteOne({ _id: doc._id });
  }
  if (live && doc.trigger === 'event') {
    await eventTriggerModel(deps.db).replaceOne(
      { _id: doc._id },
      {
        _id: doc._id,
        orgId: doc.orgId,
        eventType: String(config.type),
        whereJson: JSON.stringify(config.where ?? {}),
        activeSince: doc.updatedAt,
      },
      { upsert: true },
    );
  } else {
    await eventTriggerModel(deps.db).deleteOne({ _id: doc._id });
  }
  // This replica's matcher and the consumer's filter follow at once; should that fail (NATS or the
  // database briefly away), the periodic reload does it within EVENT_TRIGGER_REFRESH_MS.
  await deps.eventTriggers
    .refresh(deps.db)
    .catch((err: Error) =>
      deps.logger.warn(
        { err: err.message },
        'event triggers not reloaded after a change; the next reload will',
      ),
    );
  return nextRunAt;
}
