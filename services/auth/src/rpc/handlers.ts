import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { authRpc } from '@platform/contracts';
import { serveRpc, type InFlight } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { getOrganization } from '../domain/me.ts';
import { publicKeys } from '../domain/signing-keys.ts';
import { verifyApiKey } from '../domain/verify-api-key.ts';

/** NATS request/reply handlers of the auth service (queue group `auth`). */
export function serveAuthRpc(nc: NatsConnection, deps: AuthDeps, inFlight: InFlight): Subscription[] {
  const options = { queue: 'auth', logger: deps.logger, inFlight };
  return [
    serveRpc(nc, authRpc.getOrganization, ({ orgId }) => getOrganization(deps, orgId), options),
    serveRpc(nc, authRpc.jwks, () => publicKeys(deps.db, deps.tokens.keyRetentionMs), options),
    serveRpc(nc, authRpc.verifyApiKey, ({ keyHash }) => verifyApiKey(deps, keyHash), options),
  ];
}
