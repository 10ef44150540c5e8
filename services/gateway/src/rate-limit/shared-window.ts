import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { lazyBucket } from '@platform/kit';

/** Every window is split into this many slots; the count covers SLOTS + 1 of them (see below). */
const SLOTS = 60;
const BUCKET = 'gateway_rate_limits';
/** Counters of an idle organization disappear after this (longer than any sensible window). */
const BUCKET_MAX_AGE_MS = 2 * 3_600_000;

export interface LeaseResult {
  /** Requests this gateway may now serve (0: the budget is spent). */
  granted: number;
  /** Requests counted in the window after this lease, across every gateway. */
  used: number;
  /** Epoch ms when the oldest counted slot leaves the window (capacity comes back). */
  oldestExpiresAt: number;
}

type Slots = Array<[slot: number, count: number]>;

/**
 * The budget that all gateway replicas share: per organization, one KV entry with the request
 * counts of the last window's slots, changed only by compare-and-set on its revision, so two
 * gateways can never both take the last requests. A gateway takes a small batch at a time.
 *
 * The window counted at time t is slots [cur − SLOTS, cur]: it spans at least a whole window, so a
 * request is counted for at least `window` after it was admitted. Hence, in any window, admitted
 * requests ≤ limit + (requests leased earlier and still unused): at most gateways × batch.
 */
export class SharedWindow {
  /** The entry as this gateway last wrote it: the next update usually needs no read. */
  private known = new Map<string, { revision: number; slots: Slots }>();

  private readonly bucket: () => Promise<KV>;

  constructor(nc: NatsConnection) {
    this.bucket = lazyBucket(nc, { name: BUCKET, maxAgeMs: BUCKET_MAX_AGE_MS, memory: true });
  }

  async lease(orgId: string, want: number, limit: number, windowMs: number): Promise<LeaseResult> {
    const kv = await this.bucket();
    const key = keyOf(orgId);
    const slotMs = windowMs / SLOTS;
    for (let attempt = 0; attempt < 20; attempt++) {
      const entry = this.known.get(key) ?? (await read(kv, key));
      const now = Date.now();
      const cur = Math.floor(now / slotMs);
      const slots = (entry?.slots ?? []).filter(([slot]) => slot >= cur - SLOTS);
      const used = slots.reduce((sum, [, n]) => sum + n, 0);
      const granted = Math.max(0, Math.min(want, limit - used));
      const oldest = slots.length ? Math.min(...slots.map(([s]) => s)) : cur;
      const oldestExpiresAt = (oldest + SLOTS + 1) * slotMs;
      if (granted === 0) {
        // Nothing to write; forget the entry so the next attempt reads what other gateways did.
        this.known.delete(key);
        return { granted, used, oldestExpiresAt };
      }
      const last = slots.at(-1);
      if (last && last[0] === cur) last[1] += granted;
      else slots.push([cur, granted]);
      const data = JSON.stringify({ s: slots });
      try {
        const revision = entry ? await kv.update(key, data, entry.revision) : await kv.create(key, data);
        this.known.set(key, { revision, slots });
        return { granted, used: used + granted, oldestExpiresAt };
      } catch (err) {
        if (!isConflict(err)) throw err;
        this.known.delete(key);
      }
    }
    throw new Error('the shared rate-limit counter is too contended');
  }

  forget(orgId: string) {
    this.known.delete(keyOf(orgId));
  }
}

const keyOf = (orgId: string) => `rl.${orgId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

async function read(kv: KV, key: string) {
  const e = await kv.get(key);
  if (!e || e.operation !== 'PUT') return undefined;
  return { revision: e.revision, slots: e.json<{ s: Slots }>().s ?? [] };
}

/** Another gateway changed the entry since we read it (JetStream "wrong last sequence", 10071). */
function isConflict(err: unknown) {
  const e = err as { code?: unknown; message?: string };
  return e.code === 10071 || /wrong last sequence/i.test(String(e.message ?? ''));
}
