import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../logger.ts';
import { openBucket, type BucketSpec } from './kv-bucket.ts';

export interface KvMirrorOptions {
  nc: NatsConnection;
  logger: Logger;
  bucket: BucketSpec;
  /** Every entry, those already in the bucket first, then each change as it happens. */
  onEntry: (key: string, operation: 'PUT' | 'DEL' | 'PURGE', value: () => unknown) => void;
  /** After this long without the first snapshot, count as loaded anyway (default 3 s). */
  initialLoadTimeoutMs?: number;
}

/**
 * A KV bucket mirrored in memory by every replica that watches it: a change arrives within
 * milliseconds, a replica that starts late first reads every entry still in the bucket, and a
 * broken watch (NATS gone) restarts by itself. Callers keep their own maps in `onEntry`.
 */
export class KvMirror {
  readonly ready: Promise<void>;
  private markReady!: () => void;
  private loaded = false;
  private stopped = false;
  private watch: { stop(): void } | undefined;

  constructor(private readonly options: KvMirrorOptions) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    setTimeout(() => this.setLoaded(), options.initialLoadTimeoutMs ?? 3_000).unref();
    void this.watchForever();
  }

  /** True once the entries present at start have been applied (or the initial wait ran out). */
  isLoaded() {
    return this.loaded;
  }

  stop() {
    this.stopped = true;
    this.watch?.stop();
  }

  private setLoaded() {
    if (this.loaded) return;
    this.loaded = true;
    this.markReady();
  }

  private async watchForever() {
    const { nc, logger, bucket, onEntry } = this.options;
    while (!this.stopped) {
      try {
        const kv = await openBucket(nc, bucket);
        if ((await kv.status()).values === 0) this.setLoaded();
        const watch = await kv.watch();
        this.watch = watch;
        for await (const e of watch) {
          onEntry(e.key, e.operation, () => e.json());
          if (e.isUpdate || e.delta === 0) this.setLoaded();
          if (this.stopped) break;
        }
      } catch (err) {
        if (this.stopped || nc.isClosed()) return;
        logger.warn({ err: (err as Error).message, bucket: bucket.name }, 'KV watch interrupted, restarting');
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}
