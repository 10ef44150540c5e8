import type { Logger } from '@platform/kit';
import type { SharedWindow } from './shared-window.ts';

export interface Decision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until capacity comes back (for `RateLimit-Reset`, `t=` and `Retry-After`). */
  resetSeconds: number;
}

interface OrgState {
  /** Requests leased from the shared budget and not used yet. */
  permits: number;
  /** Shared count after our last lease, and when its oldest slot leaves the window. */
  used: number;
  oldestExpiresAt: number;
  /** The budget was spent at our last look: refuse locally until then, without asking NATS. */
  blockedUntil: number;
  refilling?: Promise<void>;
  lastSeen: number;
}

/**
 * Per-organization admission at one gateway. Requests are served from a local batch of permits
 * leased from the shared window (one NATS round trip per batch, not per request); when the shared
 * budget is spent the gateway refuses locally until the oldest counted slot expires. If NATS
 * cannot be reached the limiter fails open (logs, admits) rather than refusing all traffic.
 */
export class Limiter {
  private orgs = new Map<string, OrgState>();
  private lastWarn = 0;
  private sweeper: NodeJS.Timeout;

  constructor(
    private readonly shared: SharedWindow,
    private readonly batchFraction: number,
    private readonly logger: Logger,
  ) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async take(orgId: string, limit: number, windowMs: number): Promise<Decision> {
    let st = this.orgs.get(orgId);
    if (!st) {
      st = { permits: 0, used: 0, oldestExpiresAt: 0, blockedUntil: 0, lastSeen: 0 };
      this.orgs.set(orgId, st);
    }
    st.lastSeen = Date.now();
    for (let round = 0; round < 20; round++) {
      if (st.permits > 0) {
        st.permits--;
        return this.decision(st, true, limit, windowMs);
      }
      if (Date.now() < st.blockedUntil) return this.decision(st, false, limit, windowMs);
      st.refilling ??= this.refill(orgId, st, limit, windowMs).finally(() => (st.refilling = undefined));
      await st.refilling;
    }
    return this.decision(st, false, limit, windowMs);
  }

  stop() {
    clearInterval(this.sweeper);
  }

  private async refill(orgId: string, st: OrgState, limit: number, windowMs: number) {
    const batch = Math.max(1, Math.floor(limit * this.batchFraction));
    try {
      const lease = await this.shared.lease(orgId, batch, limit, windowMs);
      st.permits += lease.granted;
      st.used = lease.used;
      st.oldestExpiresAt = lease.oldestExpiresAt;
      if (lease.granted === 0) st.blockedUntil = lease.oldestExpiresAt;
    } catch (err) {
      if (Date.now() - this.lastWarn > 10_000) {
        this.lastWarn = Date.now();
        this.logger.warn({ err: (err as Error).message }, 'rate-limit store unavailable: admitting requests');
      }
      st.permits += batch;
    }
  }

  private decision(st: OrgState, allowed: boolean, limit: number, windowMs: number): Decision {
    const now = Date.now();
    const remaining = Math.max(0, limit - st.used) + st.permits;
    const resetMs = st.oldestExpiresAt > now ? st.oldestExpiresAt - now : windowMs;
    return { allowed, limit, remaining, resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
  }

  private sweep() {
    const idle = Date.now() - 2 * 3_600_000;
    for (const [org, st] of this.orgs) {
      if (st.lastSeen < idle && !st.refilling) {
        this.orgs.delete(org);
        this.shared.forget(org);
      }
    }
  }
}
