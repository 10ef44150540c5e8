import { importJWK, errors, type CryptoKey, type JWK, type JWSHeaderParameters } from 'jose';
import type { NatsConnection } from '@nats-io/transport-node';
import { authRpc } from '@platform/contracts';
import { rpcRequest, type Logger } from '@platform/kit';

/** An unknown `kid` triggers at most one JWKS fetch per this interval (forged kids cannot flood auth). */
const UNKNOWN_KID_COOLDOWN_MS = 1_000;
/** Retired keys leave the set within this time even without an unknown kid. */
const PERIODIC_REFRESH_MS = 5 * 60_000;

/**
 * The auth service's public signing keys, fetched over NATS (`svc.auth.jwks`), kept in memory, and
 * fetched again when a token names a `kid` we do not know (a rotation) or every few minutes.
 * Only Ed25519 (`EdDSA`) keys are ever imported.
 */
export class SigningKeys {
  private keys = new Map<string, CryptoKey>();
  private lastFetch = 0;
  private fetching: Promise<void> | undefined;
  private timer: NodeJS.Timeout;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), PERIODIC_REFRESH_MS);
    this.timer.unref();
  }

  /** jose's key lookup: throws for a missing or unknown kid, which fails the verification. */
  readonly getKey = async (header: JWSHeaderParameters): Promise<CryptoKey> => {
    const kid = header.kid;
    if (typeof kid !== 'string') throw new errors.JWKSNoMatchingKey('the token has no kid');
    let key = this.keys.get(kid);
    if (!key && Date.now() - this.lastFetch > UNKNOWN_KID_COOLDOWN_MS) {
      await this.refresh();
      key = this.keys.get(kid);
    }
    if (!key) throw new errors.JWKSNoMatchingKey(`no signing key ${kid}`);
    return key;
  };

  refresh(): Promise<void> {
    this.fetching ??= (async () => {
      this.lastFetch = Date.now();
      try {
        const jwks = await rpcRequest(this.nc, authRpc.jwks, {}, { timeoutMs: 2_000 });
        const next = new Map<string, CryptoKey>();
        for (const jwk of jwks.keys) {
          if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || jwk.alg !== 'EdDSA') continue;
          next.set(jwk.kid, (await importJWK(jwk as JWK, 'EdDSA')) as CryptoKey);
        }
        this.keys = next;
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'could not fetch the signing keys');
        throw err;
      } finally {
        this.fetching = undefined;
      }
    })();
    return this.fetching;
  }

  stop() {
    clearInterval(this.timer);
  }
}
