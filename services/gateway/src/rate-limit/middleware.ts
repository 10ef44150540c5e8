import type { RequestHandler } from 'express';
import { TooManyRequestsError } from '@platform/kit';
import type { GatewayRequest } from '../auth/authenticate.ts';
import type { Limiter } from './limiter.ts';
import { limitOf, type PlanTable } from './plans.ts';

/**
 * Per-organization limits by plan. Every limited response carries the IETF draft fields
 * (`RateLimit-Policy: "pro";q=1000;w=60`, `RateLimit: "pro";r=999;t=42`) and the older
 * `RateLimit-Limit/-Remaining/-Reset`; past the limit: 429, `Retry-After`, problem type
 * `quota-exceeded`. Unlimited plans (Enterprise) get no rate-limit fields.
 */
export function rateLimit(options: {
  limiter: Limiter;
  plans: PlanTable;
  fallbackPlan: string;
}): RequestHandler {
  return async (req, res, next) => {
    const identity = (req as GatewayRequest).identity;
    if (!identity) return next();
    const plan = limitOf(options.plans, identity.plan, options.fallbackPlan);
    if (!plan) return next();
    try {
      const d = await options.limiter.take(identity.orgId, plan.limit, plan.windowMs);
      const name = options.plans.has(identity.plan) ? identity.plan : options.fallbackPlan;
      const windowSeconds = Math.round(plan.windowMs / 1000);
      res.setHeader('RateLimit-Policy', `"${name}";q=${d.limit};w=${windowSeconds}`);
      res.setHeader('RateLimit', `"${name}";r=${d.remaining};t=${d.resetSeconds}`);
      res.setHeader('RateLimit-Limit', String(d.limit));
      res.setHeader('RateLimit-Remaining', String(d.remaining));
      res.setHeader('RateLimit-Reset', String(d.resetSeconds));
      if (!d.allowed) {
        return next(
          new TooManyRequestsError(
            `The ${name} plan allows ${d.limit} requests per ${windowSeconds} s for an organization; retry in ${d.resetSeconds} s`,
            d.resetSeconds,
          ),
        );
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
