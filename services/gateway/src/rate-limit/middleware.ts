import { TooManyRequestsError } from '@platform/kit';
import type { Exchange, Guard } from '../exchange.ts';
import type { Limiter } from './limiter.ts';
import { limitOf, type PlanTable } from './plans.ts';

/**
 * Per-organization limits by plan. Every limited response carries the IETF draft fields
 * (`RateLimit-Policy: "pro";q=1000;w=60`, `RateLimit: "pro";r=999;t=42`) and the older
 * `RateLimit-Limit/-Remaining/-Reset`; past the limit: 429, `Retry-After`, problem type
 * `quota-exceeded`. Unlimited plans (Enterprise) get no rate-limit fields.
 */
export function rateLimit(options: { limiter: Limiter; plans: PlanTable; fallbackPlan: string }): Guard {
  return async (x: Exchange) => {
    if (!x.identity) return;
    const plan = limitOf(options.plans, x.identity.plan, options.fallbackPlan);
    if (!plan) return;
    const d = await options.limiter.take(x.identity.orgId, plan.limit, plan.windowMs);
    const name = options.plans.has(x.identity.plan) ? x.identity.plan : options.fallbackPlan;
    const windowSeconds = Math.round(plan.windowMs / 1000);
    const res = x.res;
    res.setHeader('RateLimit-Policy', `"${name}";q=${d.limit};w=${windowSeconds}`);
    res.setHeader('RateLimit', `"${name}";r=${d.remaining};t=${d.resetSeconds}`);
    res.setHeader('RateLimit-Limit', String(d.limit));
    res.setHeader('RateLimit-Remaining', String(d.remaining));
    res.setHeader('RateLimit-Reset', String(d.resetSeconds));
    if (!d.allowed) {
      throw new TooManyRequestsError(
        `The ${name} plan allows ${d.limit} requests per ${windowSeconds} s for an organization; retry in ${d.resetSeconds} s`,
        d.resetSeconds,
      );
    }
  };
}
