import type { NatsConnection } from '@nats-io/transport-node';
import { Revocation, revocationBucket } from '@platform/contracts';
import { KvMirror, type Logger } from '@platform/kit';

/**
 * The revocations published by auth (logouts, reused refresh tokens, removed members, deleted keys),
 * mirrored in memory from the KV bucket every gateway watches: an update arrives within
 * milliseconds, and a gateway that starts late first reads every entry still in the bucket.
 */
export class RevocationList {
  private families = new Map<string, number>();
  private users = new Map<string, { at: number; until: number }>();
  private apiKeys = new Map<string, number>();
  private readonly mirror: KvMirror;
  readonly ready: Promise<void>;
  private sweeper: NodeJS.Timeout;

  constructor(nc: NatsConnection, logger: Logger) {
    this.mirror = new KvMirror({
      nc,
      logger,
      bucket: revocationBucket,
      onEntry: (key, operation, value) => this.apply(key, operation, value),
    });
    this.ready = this.mirror.ready;
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  isLoaded() {
    return this.mirror.isLoaded();
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
    this.mirror.stop();
    clearInterval(this.sweeper);
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
}
