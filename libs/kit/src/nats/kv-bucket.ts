import { StorageType } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

export interface BucketSpec {
  name: string;
  /** Entries expire after this long. */
  maxAgeMs: number;
  /** Kept in the server's memory only (counters that may be lost with the server). */
  memory?: boolean;
}

/** Creates the bucket, or binds to it when it exists, with the one configuration every user shares. */
export function openBucket(nc: NatsConnection, spec: BucketSpec): Promise<KV> {
  return new Kvm(nc).create(spec.name, {
    ttl: spec.maxAgeMs,
    history: 1,
    ...(spec.memory ? { storage: StorageType.Memory } : {}),
  });
}

/**
 * The bucket, opened on first use and kept; a failed open (NATS away) is tried again on the next
 * call instead of being remembered.
 */
export function lazyBucket(nc: NatsConnection, spec: BucketSpec): () => Promise<KV> {
  let bucket: Promise<KV> | undefined;
  return () => {
    bucket ??= openBucket(nc, spec).catch((err: unknown) => {
      bucket = undefined;
      throw err;
    });
    return bucket;
  };
}
