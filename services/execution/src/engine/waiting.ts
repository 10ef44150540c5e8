import { terminalStatuses, workflowRpc, type Step } from '@platform/contracts';
import { rpcRequest } from '@platform/kit';
import { startExecution } from '../domain/create-execution.ts';
import { executionModel, type StepStateDoc } from '../models/execution.ts';
import { failureOfRemote } from '../steps/guards.ts';
import type { StepOf } from '../steps/types.ts';
import { fail, succeed } from './attempt.ts';
import { renderText, renderValue } from './expressions.ts';
import type { Run } from './run.ts';
import type { Outcome, Runner } from './runner.ts';
import { StepFailure } from './step-failure.ts';

/** Child executions have ids derived from the parent's, so starting one twice starts it once. */
export const childExecutionId = (parentId: string, stepId: string, attempt: number) =>
  `${parentId}-${stepId}-${attempt}`;

async function resumeTime(run: Run, def: StepOf<'delay'>): Promise<Date> {
  if (def.settings.durationMs !== undefined) return new Date(Date.now() + def.settings.durationMs);
  const text = await renderText(def.settings.until!, run.data);
  const at = new Date(text);
  if (Number.isNaN(at.getTime())) {
    throw new StepFailure(
      'invalid_settings',
      `settings.until is not an ISO 8601 time: ${text.slice(0, 100)}`,
    );
  }
  return at;
}

async function startChild(run: Run, def: StepOf<'workflow'>, state: StepStateDoc): Promise<void> {
  const deps = run.deps;
  const d = run.doc;
  const snapshot = await rpcRequest(
    deps.nc,
    workflowRpc.getDefinition,
    { orgId: d.orgId, workflowId: def.settings.workflowId },
    { timeoutMs: 10_000, requestId: run.requestId },
  ).catch((err: unknown) => {
    throw failureOfRemote(err, 'The workflow service');
  });
  const input = def.settings.input === undefined ? {} : await renderValue(def.settings.input, run.data);
  await startExecution(
    deps,
    {
      id: state.childExecutionId!,
      orgId: d.orgId,
      workflow: snapshot,
      input,
      trigger: { kind: 'workflow', parentExecutionId: d._id, parentStepId: def.id },
      createdAt: new Date().toISOString(),
    },
    { requestId: run.requestId },
  );
}

/** First visit of a delay or workflow step: store what it waits for, then wait. */
export async function startWaiting(
  runner: Runner,
  run: Run,
  def: StepOf<'delay'> | StepOf<'workflow'>,
  state: StepStateDoc,
  signal: AbortSignal,
): Promise<'next' | 'again' | Outcome> {
  state.attempts++;
  state.startedAt ??= new Date();
  delete state.resumeAt;
  run.changed();
  try {
    if (def.type === 'delay') {
      state.resumeAt = await resumeTime(run, def);
      state.status = 'waiting';
      run.line('info', `waiting until ${state.resumeAt.toISOString()}`, { stepId: def.id });
      return checkWaiting(runner, run, def, state, signal);
    }
    state.status = 'waiting';
    state.childExecutionId = childExecutionId(run.id, def.id, state.attempts);
    run.line('info', `starting execution ${state.childExecutionId} of workflow ${def.settings.workflowId}`, {
      stepId: def.id,
      attempt: state.attempts,
    });
    // The child's id is on record before it exists: after a crash the same child is looked for.
    await run.flush();
    await startChild(run, def, state);
    return checkWaiting(runner, run, def, state, signal);
  } catch (err) {
    return fail(runner, run, def, state, err);
  }
}

/** A waiting step: done when its time has come or its child execution finished. */
export async function checkWaiting(
  runner: Runner,
  run: Run,
  def: Step,
  state: StepStateDoc,
  signal: AbortSignal,
): Promise<'next' | 'again' | Outcome> {
  const waitedSince = state.startedAt?.getTime() ?? Date.now();
  if (def.type === 'delay') {
    const at = state.resumeAt?.getTime() ?? 0;
    if (at > Date.now()) return runner.park(run, at - Date.now());
    succeed(
      run,
      state,
      { resumedAt: new Date().toISOString(), waitedUntil: new Date(at).toISOString() },
      def.next,
      waitedSince,
    );
    return 'next';
  }
  if (def.type !== 'workflow' || !state.childExecutionId) {
    return fail(runner, run, def, state, new StepFailure('internal', `step ${def.id} cannot wait`));
  }
  if (signal.aborted) return 'again';
  const child = await executionModel(run.deps.db).findById(state.childExecutionId).lean();
  if (!child) {
    // Crashed between recording the child's id and starting it: start it (the same id, once).
    try {
      await startChild(run, def, state);
    } catch (err) {
      return fail(runner, run, def, state, err);
    }
    return runner.park(run, 250);
  }
  if (!terminalStatuses.includes(child.status)) {
    if (def.timeoutMs && Date.now() - waitedSince > def.timeoutMs) {
      return fail(
        runner,
        run,
        def,
        state,
        new StepFailure('timeout', `The child execution ${child._id} did not finish in time`),
      );
    }
    // Poll often at first, then less: a quarter of the time waited so far, within [250 ms, slice].
    return runner.park(run, Math.max(250, (Date.now() - waitedSince) / 4));
  }
  if (child.status === 'succeeded') {
    const output = child.outputJson === undefined ? null : (JSON.parse(child.outputJson) as unknown);
    try {
      succeed(run, state, { executionId: child._id, output }, def.next, waitedSince);
    } catch (err) {
      return fail(runner, run, def, state, err);
    }
    return 'next';
  }
  const reason = child.error?.message ?? child.status;
  return fail(
    runner,
    run,
    def,
    state,
    new StepFailure('child_failed', `The child execution ${child._id} ended ${child.status}: ${reason}`),
  );
}
