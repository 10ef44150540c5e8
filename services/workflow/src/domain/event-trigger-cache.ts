import type { Connection } from 'mongoose';
import { eventTriggerModel, type EventTriggerDoc } from '../models/event-trigger.ts';

/**
 * Every active event trigger, in memory, by organization and event type, so matching an event
 * costs no query. Reloaded every EVENT_TRIGGER_REFRESH_MS (and at once after a change made by this
 * replica). After each load the listener (the consumer's filter) gets the event types in use, from
 * the database's full list: replicas may race, so nothing is applied incrementally. Loads of one
 * replica run one after the other, so an older list never overwrites a newer one of the same replica.
 */
export class EventTriggerCache {
  private byKey = new Map<string, EventTriggerDoc[]>();
  private types: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private listener: ((eventTypes: string[]) => Promise<void>) | undefined;

  /** Reloads the triggers, then hands their event types to the listener; a failure of either rejects. */
  refresh(db: Connection): Promise<void> {
    const run = this.queue.then(() => this.load(db));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async load(db: Connection) {
    const all = await eventTriggerModel(db).find().lean<EventTriggerDoc[]>();
    const next = new Map<string, EventTriggerDoc[]>();
    for (const t of all) {
      const key = `${t.orgId}|${t.eventType}`;
      next.set(key, [...(next.get(key) ?? []), t]);
    }
    this.byKey = next;
    this.types = [...new Set(all.map((t) => t.eventType))].sort();
    await this.listener?.(this.types);
  }

  match(orgId: string, eventType: string): EventTriggerDoc[] {
    return this.byKey.get(`${orgId}|${eventType}`) ?? [];
  }

  /** The event types of the triggers loaded last (unique, sorted). */
  eventTypes(): string[] {
    return this.types;
  }

  /** Called after every later load with the event types in use. */
  follow(listener: (eventTypes: string[]) => Promise<void>) {
    this.listener = listener;
  }

  /** Periodic reloads; a tick is skipped while the previous one still runs. */
  start(db: Connection, intervalMs: number, onError: (err: Error) => void) {
    let running = false;
    this.timer = setInterval(() => {
      if (running) return;
      running = true;
      void this.refresh(db)
        .catch(onError)
        .finally(() => (running = false));
    }, intervalMs);
    this.timer.unref();
  }

  stop() {
    clearInterval(this.timer);
    this.listener = undefined;
  }
}
