import type { JsMsg } from '@nats-io/jetstream';
import { terminalStatuses, type ExecutionRunMessage, type Step } from '@platform/contracts';
import { isDependencyFailure, UnavailableError, type Logger } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import { materialize, newExecutionDoc } from '../domain/create-execution.ts';
import { cancelRequestModel } from '../models/cancel-request.ts';
import { executionModel, type ExecutionDoc, type StepStateDoc } from '../models/execution.ts';
import { acquireSlot, releaseSlot } from './concurrency.ts';
import { publishTransition } from './events.ts';
import { Run } from './run.ts';
import { attemptStep } from './attempt.ts';
import { checkWaiting, startWaiting } from './waiting.ts';

export type Outcome = void | { redeliverInMs: number };

/**
 * The engine. Each execution has ONE work message for its whole life; the replica holding it is
 * the only writer of the execution (JetStream gives a message to one consumer at a time, and a
 * heartbeat keeps it while steps run). The runner walks the steps from the stored cursor: steps
 * already succeeded are never run again; a step found `running` was interrupted by a crash and
 * gets its next attempt. Waiting (delay, retry backoff, child workflow, concurrency slot) stores
 * the state and hands the message back to JetStream with a redelivery delay: nothing is held.
 */
export class Runner {
  private readonly local = new Set<string>();
  stopping = false;

  constructor(private readonly deps: ExecutionDeps) {}

  async handle(
    message: ExecutionRunMessage,
    ctx: { msg: JsMsg; log: Logger; requestId: string },
  ): Promise<Outcome> {
    const id = message.executionId;
    // A second copy of a message this replica is running (never expected): look again later.
    if (this.local.has(id)) return { redeliverInMs: 1_000 };
    this.local.add(id);
    try {
      return await this.process(message, ctx);
    } catch (err) {
      if (isDependencyFailure(err) || err instanceof UnavailableError) {
        throw new UnavailableError((err as Error).message);
      }
      ctx.log.error({ err, executionId: id }, 'engine error');
      throw err;
    } finally {
      this.local.delete(id);
    }
  }

  private async process(message: ExecutionRunMessage, ctx: { msg: JsMsg; log: Logger; requestId: string }) {
    const spec = message.create;
    let doc: ExecutionDoc | null;
    let createdHere = false;
    let unconfirmed = false;
    if (spec && !spec.reuse && ctx.msg.info.deliveryCount === 1) {
      // First delivery of a new execution: nobody has run it, so the stored document (if its
      // creator has inserted it yet) is exactly the one the message describes. No read; the first
      // flush inserts it if it is still missing (see Run.flush).
      doc = newExecutionDoc(spec);
      unconfirmed = true;
    } else {
      // The driver's own findOne: mongoose's query building costs more CPU than the read itself.
      doc = (await executionModel(this.deps.db).collection.findOne({
        _id: message.executionId,
      } as never)) as ExecutionDoc | null;
      if (!doc) {
        if (!spec) {
          ctx.log.error(
            { executionId: message.executionId },
            'work message for an unknown execution dropped',
          );
          return;
        }
        doc = (await materialize(this.deps, spec)).doc;
        createdHere = true; // its creator crashed before storing it (and publishing `queued`)
      }
    }
    if (doc.orgId !== message.orgId) return;
    const run = new Run(this.deps, doc, ctx.msg, ctx.log.child({ executionId: doc._id }), ctx.requestId);
    run.unconfirmed = unconfirmed;
    if (terminalStatuses.includes(doc.status)) {
      await this.afterTerminal(run);
      return;
    }
    const signal = this.deps.cancels.register(doc._id);
    const beat = setInterval(
      () => ctx.msg.working(),
      Math.max(500, this.deps.config.EXECUTION_ACK_WAIT_MS / 3),
    );
    try {
      const cancelled = await this.cancelRequest(doc);
      if (cancelled || signal.aborted) return await this.cancel(run, cancelled?.requestedAt);
      if (doc.status === 'running') {
        // Resumed (after a park or a crash): its `running` event may not have gone out.
        await publishTransition(this.deps, doc, 'running', ctx.requestId);
      } else {
        const started = await this.start(run, createdHere);
        if (started) return started;
      }
      return await this.loop(run, signal);
    } finally {
      clearInterval(beat);
      this.deps.cancels.release(doc._id);
    }
  }

  /** The execution's cancel request: from the replicas' mirror while it can answer, else stored. */
  private async cancelRequest(doc: ExecutionDoc): Promise<{ requestedAt?: Date } | null> {
    const mirrored = this.deps.cancels.fromMirror(doc._id, doc.createdAt);
    if (mirrored) return mirrored.requestedAt ? mirrored : null;
    return (await cancelRequestModel(this.deps.db).collection.findOne({
      _id: doc._id,
    } as never)) as { requestedAt?: Date } | null;
  }

  /** queued → running, once a concurrency slot (if the workflow has a limit) is free. */
  private async start(run: Run, publishQueued: boolean): Promise<Outcome> {
    const d = run.doc;
    if (d.concurrencyLimit) {
      const slot = await acquireSlot(this.deps, d, d.concurrencyLimit);
      if (!slot) {
        if (d.logSeq === 0) {
          run.line('info', `waiting for one of the workflow's ${d.concurrencyLimit} concurrency slots`);
          await run.flush();
        }
        return {
          redeliverInMs: Math.min(1_000 + Math.random() * 1_000, this.deps.config.EXECUTION_PARK_SLICE_MS),
        };
      }
      d.slotId = slot;
    }
    const now = new Date();
    d.startedAt = now;
    d.deadlineAt = new Date(now.getTime() + (d.timeoutMs ?? this.deps.config.EXECUTION_DEFAULT_TIMEOUT_MS));
    if (publishQueued) run.transition('queued');
    run.transition('running');
    run.line('info', `execution started (workflow version ${d.workflowVersion})`);
    return undefined;
  }

  private following(run: Run, id: string): string {
    const i = run.defs.findIndex((s) => s.id === id);
    return run.defs[i + 1]?.id ?? '$end';
  }

  private async loop(run: Run, signal: AbortSignal): Promise<Outcome> {
    const d = run.doc;
    for (;;) {
      if (signal.aborted) return this.cancel(run, new Date());
      if (d.deadlineAt && Date.now() > d.deadlineAt.getTime()) {
        const ms = d.timeoutMs ?? this.deps.config.EXECUTION_DEFAULT_TIMEOUT_MS;
        return this.finish(run, 'failed', {
          kind: 'timeout',
          message: `The execution timed out after ${ms} ms`,
          ...(d.currentStepId && d.currentStepId !== '$end' ? { stepId: d.currentStepId } : {}),
        });
      }
      if (this.stopping) {
        // This replica is shutting down: store the progress and let another replica go on now.
        await run.flush();
        return { redeliverInMs: 0 };
      }
      const stepId = d.currentStepId ?? run.defs[0]?.id ?? '$end';
      if (stepId === '$end') return this.finish(run, 'succeeded');
      const def = run.defs.find((s) => s.id === stepId);
      const state = run.states.get(stepId);
      if (!def || !state) {
        return this.finish(run, 'failed', { kind: 'internal', message: `unknown step ${stepId}`, stepId });
      }
      if (d.currentStepId === undefined) {
        d.currentStepId = stepId;
        run.changed();
      }
      const outcome = await this.visit(run, def, state, signal);
      if (outcome === 'next') {
        d.currentStepId = state.next ?? this.following(run, def.id);
        run.changed();
        continue;
      }
      if (outcome === 'again') continue;
      return outcome;
    }
  }

  /** 'next': the step succeeded; 'again': look at it again at once; else the handler's outcome. */
  private async visit(
    run: Run,
    def: Step,
    state: StepStateDoc,
    signal: AbortSignal,
  ): Promise<'next' | 'again' | Outcome> {
    switch (state.status) {
      case 'succeeded':
        return 'next';
      case 'waiting':
        return checkWaiting(this, run, def, state, signal);
      case 'retrying':
        if (state.resumeAt && state.resumeAt.getTime() > Date.now()) {
          return this.park(run, state.resumeAt.getTime() - Date.now());
        }
        break;
      case 'running':
        run.line('warn', `attempt ${state.attempts} was interrupted (its replica stopped); it is run again`, {
          stepId: def.id,
          attempt: state.attempts,
        });
        break;
      case 'failed':
      case 'cancelled':
      case 'skipped':
        return this.finish(run, 'failed', {
          kind: 'internal',
          message: `step ${def.id} is ${state.status}`,
          stepId: def.id,
        });
      default:
        break;
    }
    if (def.type === 'delay' || def.type === 'workflow') return startWaiting(this, run, def, state, signal);
    return attemptStep(this, run, def, state, signal);
  }

  /** Stores the state and asks for the message again after `ms` (at most a park slice). */
  async park(run: Run, ms: number): Promise<Outcome> {
    await run.flush();
    const d = run.doc;
    const toDeadline = d.deadlineAt ? d.deadlineAt.getTime() - Date.now() + 10 : ms;
    const delay = Math.max(0, Math.min(ms, toDeadline, this.deps.config.EXECUTION_PARK_SLICE_MS));
    return { redeliverInMs: delay };
  }

  async finish(
    run: Run,
    status: 'succeeded' | 'failed' | 'cancelled',
    error?: { kind: NonNullable<typeof run.doc.error>['kind']; message: string; stepId?: string },
  ): Promise<Outcome> {
    run.finishState(status, error);
    await run.flush();
    await this.afterTerminal(run);
    return undefined;
  }

  private async cancel(run: Run, requestedAt: Date | undefined): Promise<Outcome> {
    run.doc.cancelRequestedAt = requestedAt ?? new Date();
    const current = run.doc.currentStepId ? run.states.get(run.doc.currentStepId) : undefined;
    if (current?.childExecutionId && current.status === 'waiting') {
      await requestCancel(this.deps, run.doc.orgId, current.childExecutionId);
    }
    return this.finish(run, 'cancelled', { kind: 'cancelled', message: 'The execution was cancelled' });
  }

  /**
   * After the terminal state is stored: its event, unless this run's flush just published it (a
   * crash between storing and publishing leaves it to the redelivery), and the slot.
   */
  private async afterTerminal(run: Run) {
    const d = run.doc;
    if (!run.published.has(d.status)) await publishTransition(this.deps, d, d.status, run.requestId);
    if (d.slotId) await releaseSlot(this.deps, d.slotId, d._id);
  }

  get config() {
    return this.deps.config;
  }

  get dependencies() {
    return this.deps;
  }
}

/**
 * Stores a cancel request (idempotent), then announces it in the cancel bucket: the replica running
 * the execution aborts the step in progress, and every replica's mirror has it. If the
 * announcement fails the caller gets a 503 and repeats the request (the stored part is a no-op).
 */
export async function requestCancel(deps: ExecutionDeps, orgId: string, executionId: string): Promise<void> {
  const requestedAt = new Date();
  try {
    await cancelRequestModel(deps.db).create({ _id: executionId, orgId, requestedAt });
  } catch (err) {
    if ((err as { code?: number }).code !== 11000) throw err;
  }
  await deps.cancels.announce(orgId, executionId, requestedAt);
}
