import { z } from 'zod';

/** A plan's request limit per organization; `null` means unlimited. */
export type PlanLimit = { limit: number; windowMs: number } | null;
export type PlanTable = Map<string, PlanLimit>;

/** `pro=1000/60,enterprise=unlimited` → plan → limit per window (seconds). */
export const plansFromEnv = z.string().transform((value, ctx): PlanTable => {
  const plans: PlanTable = new Map();
  for (const entry of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9_-]+)=(?:(unlimited)|(\d+)\/(\d+(?:\.\d+)?))$/.exec(entry);
    if (!m) {
      ctx.addIssue({
        code: 'custom',
        message: `"${entry}" is not \`plan=limit/seconds\` or \`plan=unlimited\``,
      });
      return z.NEVER;
    }
    const windowMs = Math.round(Number(m[4]) * 1000);
    if (!m[2] && (Number(m[3]) < 1 || windowMs < 1000)) {
      ctx.addIssue({ code: 'custom', message: `"${entry}": the limit must be ≥ 1 and the window ≥ 1 s` });
      return z.NEVER;
    }
    plans.set(m[1]!, m[2] ? null : { limit: Number(m[3]), windowMs });
  }
  return plans;
});

export function limitOf(plans: PlanTable, plan: string, fallback: string): PlanLimit {
  if (plans.has(plan)) return plans.get(plan)!;
  return plans.get(fallback) ?? null;
}
