import type { WorkflowDeps } from '../deps.ts';
import {
  scheduleModel,
  scheduleTickModel,
  type ScheduleDoc,
  type ScheduleTickDoc,
} from '../models/schedule.ts';
import { workflowModel, type WorkflowDoc } from '../models/workflow.ts';
import { lastTickAtOrBefore, nextTick } from './cron.ts';
import { derivedExecutionId } from './derived-id.ts';
import { requestExecution } from './request-execution.ts';

/**
 * Schedule triggers, run by every replica (system-wide jobs, not scoped by organization):
 * - each second, due schedules are claimed tick by tick with a unique insert of
 *   `<workflowId>:<tick>`, so exactly one replica starts each tick's execution, whose id is derived
 *   from the tick (starting it twice starts it once);
 * - a tick whose claimant died before starting it is started by another replica after 15 s;
 * - ticks missed while no replica ran are not replayed one by one: the latest one runs once.
 */
const recoverAfterMs = 15_000;
const keepTicksMs = 3_600_000;

async function startTick(deps: WorkflowDeps, tick: ScheduleTickDoc): Promise<void> {
  const wf = await workflowModel(deps.db).findById(tick.workflowId).lean<WorkflowDoc>();
  if (wf && !wf.deletedAt && wf.active && wf.trigger === 'schedule' && wf.orgId === tick.orgId) {
    const config = JSON.parse(wf.triggerConfigJson) as { input?: unknown };
    await requestExecution(
      deps,
      wf,
      config.input ?? {},
      { kind: 'schedule', scheduledFor: tick.tick.toISOString() },
      { executionId: tick.executionId },
    );
  }
  await scheduleTickModel(deps.db).updateOne({ _id: tick._id }, { $set: { status: 'started' } });
}

async function claimDue(deps: WorkflowDeps, schedule: ScheduleDoc, now: Date): Promise<void> {
  const tick = lastTickAtOrBefore(schedule.cron, schedule.timezone, now);
  await scheduleModel(deps.db).updateOne(
    { _id: schedule._id },
    { $set: { nextRunAt: nextTick(schedule.cron, schedule.timezone, now) } },
  );
  const doc: ScheduleTickDoc = {
    _id: `${schedule._id}:${tick.getTime()}`,
    orgId: schedule.orgId,
    workflowId: schedule._id,
    tick,
    executionId: derivedExecutionId('schedule', schedule._id, String(tick.getTime())),
    status: 'claimed',
    claimedAt: new Date(),
  };
  try {
    await scheduleTickModel(deps.db).create(doc);
  } catch (err) {
    if ((err as { code?: number }).code === 11000) return; // another replica has this tick
    throw err;
  }
  await startTick(deps, doc).catch((err: unknown) =>
    deps.logger.warn(
      { err: (err as Error).message, workflowId: schedule._id },
      'scheduled execution not started yet; will retry',
    ),
  );
}

export async function schedulerPass(deps: WorkflowDeps, now = new Date()): Promise<void> {
  const due = await scheduleModel(deps.db)
    .find({ nextRunAt: { $lte: now } })
    .limit(200)
    .lean<ScheduleDoc[]>();
  for (const schedule of due) await claimDue(deps, schedule, now);
}

async function recoverTicks(deps: WorkflowDeps): Promise<void> {
  const ticks = scheduleTickModel(deps.db);
  const stale = await ticks
    .find({ status: 'claimed', claimedAt: { $lt: new Date(Date.now() - recoverAfterMs) } })
    .limit(100)
    .lean<ScheduleTickDoc[]>();
  for (const tick of stale) await startTick(deps, tick);
  await ticks.deleteMany({ claimedAt: { $lt: new Date(Date.now() - keepTicksMs) } });
}

export function startScheduler(deps: WorkflowDeps): () => void {
  let busy = false;
  let lastRecovery = Date.now();
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    void (async () => {
      try {
        await schedulerPass(deps);
        if (Date.now() - lastRecovery > recoverAfterMs) {
          lastRecovery = Date.now();
          await recoverTicks(deps);
        }
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message }, 'scheduler pass failed; will retry');
      } finally {
        busy = false;
      }
    })();
  }, deps.config.SCHEDULER_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
