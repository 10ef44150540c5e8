import type { Connection } from 'mongoose';
import { counterModel, dailyModel, hourlyModel } from './counters.ts';
import { markModel } from './mark.ts';
import { messageModel } from './message.ts';
import { sessionModel } from './session.ts';
import { systemEventModel } from './system-event.ts';

/** Creates the declared indexes at start (idempotent; replicas may race, creating the same index twice is a no-op). */
export async function ensureIndexes(db: Connection): Promise<void> {
  for (const model of [
    sessionModel(db),
    messageModel(db),
    systemEventModel(db),
    markModel(db),
    counterModel(db),
    dailyModel(db),
    hourlyModel(db),
  ]) {
    await model.createIndexes();
  }
}
