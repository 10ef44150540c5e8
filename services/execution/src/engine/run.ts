import type { JsMsg } from '@nats-io/jetstream';
import type { ExecutionError, ExecutionStatus, Step } from '@platform/contracts';
import type { Logger } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import {
  executionModel,
  type ExecutionDoc,
  type LogLineDoc,
  type StepStateDoc,
} from '../models/execution.ts';
import type { ExpressionData } from '../steps/types.ts';
import { publishTransition } from './events.ts';

type Level = LogLineDoc['level'];

/** Beyond this age a new execution's creator has most likely stored it (see Run.store). */
const CREATOR_INSERT_MS = 250;

/**
 * The in-memory state of one execution while a replica holds its work message. Changes accumulate
 * and `flush()` stores them in ONE update (state, every step, new log lines), then publishes the
 * events of the transitions it stored. Flushes happen before a step with side effects starts,
 * when the execution parks, and when it finishes, so pure steps (transform, condition) cost no
 * extra write and logs never cost one of their own.
 */
export class Run {
  readonly defs: Step[];
  readonly states = new Map<string, StepStateDoc>();
  readonly data: ExpressionData;
  private readonly newLogs: LogLineDoc[] = [];
  private readonly pendingEvents: ExecutionStatus[] = [];
  /** Transitions whose events this run has published (after storing them). */
  readonly published = new Set<ExecutionStatus>();
  private dirty = false;
  /**
   * Built from the work message without reading storage: the document may not be inserted yet
   * (its creator is slow or crashed). The first flush then inserts it.
   */
  unconfirmed = false;

  constructor(
    readonly deps: ExecutionDeps,
    readonly doc: ExecutionDoc,
    readonly msg: JsMsg,
    readonly log: Logger,
    readonly requestId: string,
  ) {
    this.defs = JSON.parse(doc.stepsJson) as Step[];
    for (const s of doc.steps) this.states.set(s.id, s);
    const steps: ExpressionData['steps'] = {};
    for (const s of doc.steps) {
      steps[s.id] = {
        status: s.status,
        ...(s.outputJson !== undefined ? { output: JSON.parse(s.outputJson) as unknown } : {}),
        ...(s.error ? { error: s.error } : {}),
      };
    }
    this.data = {
      input: JSON.parse(doc.inputJson) as unknown,
      steps,
      execution: {
        id: doc._id,
        workflowId: doc.workflowId,
        workflowVersion: doc.workflowVersion,
        trigger: doc.trigger,
      },
    };
  }

  get id() {
    return this.doc._id;
  }

  changed() {
    this.dirty = true;
  }

  /** A log line of the execution (stored with the next flush; capped per execution). */
  line(level: Level, message: string, extra: { stepId?: string; attempt?: number; data?: unknown } = {}) {
    this.dirty = true;
    if (this.doc.logSeq >= this.deps.config.EXECUTION_LOG_LIMIT) {
      this.doc.logsDropped++;
      return;
    }
    this.doc.logSeq++;
    const dataJson = extra.data === undefined ? undefined : JSON.stringify(extra.data).slice(0, 4_000);
    this.newLogs.push({
      seq: this.doc.logSeq,
      at: new Date(),
      level,
      ...(extra.stepId ? { stepId: extra.stepId } : {}),
      ...(extra.attempt ? { attempt: extra.attempt } : {}),
      message: message.slice(0, 2_000),
      ...(dataJson ? { dataJson } : {}),
    });
  }

  transition(status: ExecutionStatus) {
    this.doc.status = status;
    this.pendingEvents.push(status);
    this.dirty = true;
  }

  /** Records a step's output for expressions of later steps. */
  noteStep(state: StepStateDoc) {
    this.data.steps[state.id] = {
      status: state.status,
      ...(state.outputJson !== undefined ? { output: JSON.parse(state.outputJson) as unknown } : {}),
      ...(state.error ? { error: state.error } : {}),
    };
  }

  /** Stores what changed in one update, then publishes the events of stored transitions. */
  async flush(): Promise<void> {
    if (this.dirty) {
      const d = this.doc;
      const set: Record<string, unknown> = {
        status: d.status,
        steps: d.steps,
        logSeq: d.logSeq,
        logsDropped: d.logsDropped,
      };
      for (const key of [
        'currentStepId',
        'outputJson',
        'error',
        'startedAt',
        'finishedAt',
        'deadlineAt',
        'cancelRequestedAt',
        'slotId',
      ] as const) {
        if (d[key] !== undefined) set[key] = d[key];
      }
      const update: Record<string, unknown> = { $set: set };
      if (this.newLogs.length > 0) update.$push = { logs: { $each: this.newLogs } };
      const stored = await this.store(update);
      if (!stored) {
        // Its creator had not inserted it: this replica does, and `queued` goes out first.
        this.pendingEvents.unshift('queued');
      }
      this.unconfirmed = false;
      this.newLogs.length = 0;
      this.dirty = false;
    }
    while (this.pendingEvents.length > 0) {
      await publishTransition(this.deps, this.doc, this.pendingEvents[0]!, this.requestId);
      this.published.add(this.pendingEvents.shift()!);
    }
  }

  /**
   * One write by _id; false if an unconfirmed document was missing and has been inserted here.
   * Both orders below are correct; they differ in cost. A young execution is inserted first: the
   * runner usually gets its work message before the creator's insert is done (measured: 4 times
   * out of 5 at 60 executions/s). An older one (a queue backlog) was almost surely stored by its
   * creator by now, so it is updated first.
   */
  private async store(changes: Record<string, unknown>): Promise<boolean> {
    const collection = executionModel(this.deps.db).collection;
    const update = () =>
      collection.updateOne({ _id: this.doc._id } as never, changes, { ignoreUndefined: true });
    /** True if inserted here, false if the creator's insert came first. */
    const insert = async () => {
      try {
        const logs = [...this.doc.logs, ...this.newLogs];
        await collection.insertOne({ ...this.doc, logs } as never, { ignoreUndefined: true });
        return true;
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err;
        return false;
      }
    };
    if (this.unconfirmed) {
      const young = Date.now() - this.doc.createdAt.getTime() < CREATOR_INSERT_MS;
      if (young && (await insert())) return false;
      if ((await update()).matchedCount > 0) return true;
      if (await insert()) return false;
    }
    await update();
    return true;
  }

  /** The output of the execution: that of the last step that succeeded (the flow only goes forward). */
  lastOutputJson(): string | undefined {
    let out: string | undefined;
    for (const s of this.doc.steps) if (s.status === 'succeeded') out = s.outputJson;
    return out;
  }

  /** Sets the terminal state; the caller flushes. */
  finishState(status: 'succeeded' | 'failed' | 'cancelled', error?: ExecutionError) {
    const d = this.doc;
    const now = new Date();
    d.finishedAt = now;
    if (status === 'succeeded') {
      const out = this.lastOutputJson();
      if (out !== undefined) d.outputJson = out;
    } else if (error) {
      d.error = error;
    }
    for (const s of d.steps) {
      if (s.status === 'pending') s.status = 'skipped';
      else if (s.status === 'running' || s.status === 'retrying' || s.status === 'waiting') {
        s.status = status === 'cancelled' ? 'cancelled' : 'failed';
        s.finishedAt = now;
      }
    }
    const ms = d.startedAt ? now.getTime() - d.startedAt.getTime() : 0;
    const message =
      status === 'succeeded'
        ? `execution succeeded in ${ms} ms`
        : status === 'cancelled'
          ? 'execution cancelled'
          : `execution failed: ${error?.message ?? 'unknown error'}`;
    this.line(status === 'failed' ? 'error' : 'info', message);
    this.transition(status);
  }
}
