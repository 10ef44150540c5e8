import type { Connection } from 'mongoose';
import { eventTriggerModel, type EventTriggerDoc } from '../models/event-trigger.ts';

/**
 * Every active event trigger, in memory, by organization and event type: the EVENTS stream carries
 * every platform event and matching must not cost a query each. Reloaded every
 * EVENT_TRIGGER_REFRESH_MS (and at once after a change made by this replica).
 */
export class EventTriggerCache {
  private byKey = new Map<string, EventTriggerDoc[]>();
  private timer: NodeJS.Timeout | undefined;

  async refresh(db: Connection) {
    const all = await eventTriggerModel(db).find().lean<EventTriggerDoc[]>();
    const next = new Map<string, EventTriggerDoc[]>();
    for (const t of all) {
      const key = `${t.orgId}|${t.eventType}`;
      next.set(key, [...(next.get(key) ?? []), t]);
    }
    this.byKey = next;
  }

  match(orgId: string, eventType: string): EventTriggerDoc[] {
    return this.byKey.get(`${orgId}|${eventType}`) ?? [];
  }

  start(db: Connection, intervalMs: number, onError: (err: Error) => void) {
    this.timer = setInterval(() => void this.refresh(db).catch(onError), intervalMs);
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
  }
}
