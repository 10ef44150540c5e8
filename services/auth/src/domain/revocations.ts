import type { NatsConnection } from '@nats-io/transport-node';
import { revocationBucket, revocationKey, type Revocation } from '@platform/contracts';
import { lazyBucket, UnavailableError } from '@platform/kit';

/** Tells every gateway, through the revocation KV bucket, which tokens and keys to reject. */
export interface RevocationPublisher {
  /** Access tokens of a login (their `sid`), until they would have expired anyway. */
  revokeFamily(familyId: string): Promise<void>;
  /** Every access token of a user issued before now (member removed or role changed). */
  revokeUser(userId: string): Promise<void>;
  /** A deleted API key, rejected at once rather than when gateway caches expire. */
  revokeApiKey(apiKeyId: string): Promise<void>;
}

export function revocationPublisher(nc: NatsConnection, accessTtlSeconds: number): RevocationPublisher {
  const kv = lazyBucket(nc, revocationBucket);
  const publish = async (kind: Revocation['kind'], id: string, lifetimeMs: number) => {
    const at = Date.now();
    const entry: Revocation = { kind, id, at, until: at + lifetimeMs };
    try {
      await (await kv()).put(revocationKey(kind, id), JSON.stringify(entry));
    } catch (err) {
      throw new UnavailableError(`Could not publish the revocation: ${(err as Error).message}`);
    }
  };
  // Tokens may be accepted with some clock skew past `exp`, so entries outlive them by a minute.
  const tokenLifetimeMs = (accessTtlSeconds + 60) * 1000;
  return {
    revokeFamily: (id) => publish('family', id, tokenLifetimeMs),
    revokeUser: (id) => publish('user', id, tokenLifetimeMs),
    // A deleted key never comes back; the gateways' key caches last seconds, a minute is plenty.
    revokeApiKey: (id) => publish('apikey', id, 10 * 60_000),
  };
}
