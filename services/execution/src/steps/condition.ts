import { evaluate } from '../engine/expressions.ts';
import type { StepOf, StepResult, StepRunContext } from './types.ts';

/** JSONata's truthiness ($boolean): empty strings, 0, null, empty arrays and objects are false. */
export function truthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.some(truthy);
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

/** The first branch whose `when` holds decides the next step; else `otherwise`, else the following. */
export async function runCondition(step: StepOf<'condition'>, ctx: StepRunContext): Promise<StepResult> {
  const { branches, otherwise } = step.settings;
  for (const [i, branch] of branches.entries()) {
    if (truthy(await evaluate(branch.when, ctx.data))) {
      return { output: { matched: i, next: branch.next }, next: branch.next };
    }
  }
  return { output: { matched: null, next: otherwise ?? null }, next: otherwise };
}
