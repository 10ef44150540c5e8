import { evaluate } from '../engine/expressions.ts';
import type { StepOf, StepResult, StepRunContext } from './types.ts';

/** The value of a JSONata expression over {input, steps, execution}. */
export async function runTransform(step: StepOf<'transform'>, ctx: StepRunContext): Promise<StepResult> {
  return { output: (await evaluate(step.settings.expression, ctx.data)) ?? null };
}
