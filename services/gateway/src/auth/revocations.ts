import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { Revocation, revocationBucket } from '@platform/contracts';
import type { Logger } from '@platform/kit';

/** After this long without the first snapshot, serve anyway (an empty or expired bucket sends nothing). */
const INITIAL_LOAD_TIMEOUT_MS = 3_000;

/**
 * The revocations published by auth (logouts, reused refresh tokens, removed members, deleted keys),
 * mirrored in memory from the KV bucket every gateway watches: an update arrives within
 * milliseconds, and a gateway that starts late first reads every entry still in the bucket.
 */
export class RevocationList {
  private families = new Map<string, number>();
  private users = new Map<string, { at: number; until: number }>();
  private apiKeys = new Map<string, number>();
  private stopped = false;
  private loaded = false;
  readonly ready: Promise<void>;
  private markReady!: () => void;
  private sweeper: NodeJS.Timeout;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    setTimeout(() => this.setLoaded(), INITIAL_LOAD_TIMEOUT_MS).unref();
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
    void this.watchForever();
  }

  isLoaded() {
    return this.loaded;
  }

  isFamilyRevoked(familyId: string) {
    return this.families.has(familyId);
  }

  /** Tokens issued (iat, seconds) in or before the second of the user's revocation are rejected. */
  isUserTokenRevoked(userId: string, issuedAtSeconds: number) {
    const r = this.users.get(userId);
    return r !== undefined && issuedAtSeconds <= Math.floor(r.at / 1000);
  }

  isApiKeyRevoked(apiKeyId: string) {
    return this.apiKeys.has(apiKeyId);
  }

  stop() {
    this.stopped = true;
    clearInterval(this.sweeper);
  }

  private setLoaded() {
    if (this.loaded) return;
    this.loaded = true;
    this.markReady();
  }

  private apply(key: string, operation: string, value: () => unknown) {
    const [kind, ...rest] = key.split('.');
    const id = rest.join('.');
    const maps = { family: this.families, user: this.users, apikey: this.apiKeys } as const;
    const map = maps[kind as keyof typeof maps];
    if (!map) return;
    if (operation !== 'PUT') {
      map.delete(id);
      return;
    }
    const parsed = Revocation.safeParse(value());
    if (!parsed.success) return;
    if (parsed.data.kind === 'user') this.users.set(id, { at: parsed.data.at, until: parsed.data.until });
    else (map as Map<string, number>).set(id, parsed.data.until);
  }

  private sweep() {
    const now = Date.now();
    for (const [id, until] of this.families) if (until < now) this.families.delete(id);
    for (const [id, until] of this.apiKeys) if (until < now) this.apiKeys.delete(id);
    for (const [id, r] of this.users) if (r.until < now) this.users.delete(id);
  }

  private async watchForever() {
    while (!this.stopped) {
      try {
        const kv: KV = await new Kvm(this.nc).create(revocationBucket.name, {
          ttl: revocationBucket.maxAgeMs,
          history: 1,
        });
        if ((await kv.status()).values === 0) this.setLoaded();
        const watch = await kv.watch();
        for await (const e of watch) {
          this.apply(e.key, e.operation, () => e.json());
          if (e.isUpdate || e.delta === 0) this.setLoaded();
          if (this.stopped) break;
        }
      } catch (err) {
        if (this.stopped || this.nc.isClosed()) return;
        this.logger.warn({ err: (err as Error).message }, 'revocation watch interrupted, restarting');
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}
