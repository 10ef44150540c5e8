import type { Step } from '@platform/contracts';
import type { StepStateDoc } from '../models/execution.ts';
import { runStep } from '../steps/index.ts';
import { backoffMs, shouldRetry } from './retry-policy.ts';
import type { Run } from './run.ts';
import type { Outcome, Runner } from './runner.ts';
import { StepFailure } from './step-failure.ts';

/** Default step timeouts by type (a step's `timeoutMs` overrides). */
const defaultTimeoutMs: Record<Step['type'], number> = {
  http: 30_000,
  transform: 5_000,
  condition: 5_000,
  agent: 120_000,
  integration: 60_000,
  delay: 0,
  workflow: 0,
};

function asFailure(err: unknown): StepFailure {
  if (err instanceof StepFailure) return err;
  return new StepFailure('internal', (err as Error).message ?? String(err));
}

/** Stores an attempt's output, or throws output_too_large when it is over the limit. */
export function succeed(
  run: Run,
  state: StepStateDoc,
  output: unknown,
  next: string | undefined,
  started: number,
) {
  const json = JSON.stringify(output ?? null);
  const limit = run.deps.config.STEP_OUTPUT_LIMIT_BYTES;
  if (Buffer.byteLength(json) > limit) {
    throw new StepFailure('output_too_large', `The step output is larger than the limit (${limit} bytes)`);
  }
  state.status = 'succeeded';
  state.outputJson = json;
  state.finishedAt = new Date();
  delete state.error;
  delete state.resumeAt;
  if (next) state.next = next;
  run.noteStep(state);
  run.line('info', `step ${state.id} succeeded in ${Date.now() - started} ms`, {
    stepId: state.id,
    attempt: state.attempts,
  });
  run.changed();
}

/**
 * A failed attempt: retried after a backoff (the execution parks) while the policy allows, else
 * the step and the execution fail.
 */
export async function fail(
  runner: Runner,
  run: Run,
  def: Step,
  state: StepStateDoc,
  err: unknown,
): Promise<'again' | Outcome> {
  const failure = asFailure(err);
  state.error = {
    kind: failure.kind,
    message: failure.message,
    ...(failure.status ? { status: failure.status } : {}),
  };
  run.noteStep(state);
  run.changed();
  if (failure.kind === 'cancelled') {
    return runner.finish(run, 'cancelled', {
      kind: 'cancelled',
      message: 'The execution was cancelled',
      stepId: def.id,
    });
  }
  if (shouldRetry(def.retry, failure.kind, state.attempts)) {
    const delay = backoffMs(def.retry, state.attempts);
    state.status = 'retrying';
    state.resumeAt = new Date(Date.now() + delay);
    run.line(
      'warn',
      `attempt ${state.attempts} failed (${failure.kind}): ${failure.message}; retrying in ${delay} ms`,
      {
        stepId: def.id,
        attempt: state.attempts,
        data: { kind: failure.kind, delayMs: delay, ...(failure.status ? { status: failure.status } : {}) },
      },
    );
    if (delay < 20) return 'again';
    return runner.park(run, delay);
  }
  state.status = 'failed';
  state.finishedAt = new Date();
  run.line(
    'error',
    `attempt ${state.attempts} failed (${failure.kind}): ${failure.message}; no attempt left`,
    {
      stepId: def.id,
      attempt: state.attempts,
      data: { kind: failure.kind, ...(failure.status ? { status: failure.status } : {}) },
    },
  );
  return runner.finish(run, 'failed', {
    kind: failure.kind,
    message: `Step ${def.id}: ${failure.message}`,
    stepId: def.id,
  });
}

/** One attempt of a step that runs in one go (http, transform, condition, agent, integration). */
export async function attemptStep(
  runner: Runner,
  run: Run,
  def: Step,
  state: StepStateDoc,
  executionSignal: AbortSignal,
): Promise<'next' | 'again' | Outcome> {
  const pure = def.type === 'transform' || def.type === 'condition';
  const now = new Date();
  state.attempts++;
  state.status = 'running';
  state.startedAt ??= now;
  delete state.resumeAt;
  run.changed();
  if (!pure) {
    run.line('info', `attempt ${state.attempts} started`, { stepId: def.id, attempt: state.attempts });
    // The attempt is on record before its side effect happens.
    await run.flush();
  }
  const d = run.doc;
  const left = d.deadlineAt ? d.deadlineAt.getTime() - Date.now() : Infinity;
  const timeoutMs = Math.max(1, Math.min(def.timeoutMs ?? defaultTimeoutMs[def.type], left));
  const signal = AbortSignal.any([executionSignal, AbortSignal.timeout(timeoutMs)]);
  const started = Date.now();
  try {
    const result = await runStep(def, {
      deps: run.deps,
      execution: { id: d._id, orgId: d.orgId, workflowId: d.workflowId, workflowVersion: d.workflowVersion },
      data: run.data,
      signal,
      timeoutMs,
      attempt: state.attempts,
      log: (level, message, data) =>
        run.line(level, message, { stepId: def.id, attempt: state.attempts, data }),
    });
    succeed(run, state, result.output, result.next ?? def.next, started);
    return 'next';
  } catch (err) {
    if (executionSignal.aborted) {
      return fail(runner, run, def, state, new StepFailure('cancelled', 'The execution was cancelled'));
    }
    return fail(runner, run, def, state, err);
  }
}
