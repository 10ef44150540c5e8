import type { Step } from '@platform/contracts';
import { StepFailure } from '../engine/step-failure.ts';
import { runAgent } from './agent.ts';
import { runCondition } from './condition.ts';
import { runHttp } from './http.ts';
import { runIntegration } from './integration.ts';
import { runTransform } from './transform.ts';
import type { StepResult, StepRunContext } from './types.ts';

/** Runs one attempt of a one-shot step (delay and workflow steps wait, see engine/waiting.ts). */
export function runStep(step: Step, ctx: StepRunContext): Promise<StepResult> {
  switch (step.type) {
    case 'http':
      return runHttp(step, ctx);
    case 'transform':
      return runTransform(step, ctx);
    case 'condition':
      return runCondition(step, ctx);
    case 'agent':
      return runAgent(step, ctx);
    case 'integration':
      return runIntegration(step, ctx);
    default:
      return Promise.reject(new StepFailure('internal', `step type ${step.type} does not run in one go`));
  }
}
