import type { Identity } from '@platform/contracts';
import { ConflictError, type Logger } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { markFailing, markHealthy } from './health.ts';
import { findConnection } from './list-connections.ts';
import { loadIntegration } from './run-context.ts';
import { requireWriter } from './roles.ts';
import { verifyCredentials } from './verify.ts';
import { toConnection } from './views.ts';

/** POST /connections/{id}/test: runs the test call and records the outcome in the status. */
export async function testConnection(
  deps: IntegrationDeps,
  identity: Identity,
  id: string,
  request: { requestId: string; log: Logger },
) {
  requireWriter(identity);
  const doc = await findConnection(deps, identity.orgId, id);
  if (doc.status === 'revoked') {
    throw new ConflictError('The connection is revoked; give it new credentials first');
  }
  const { def, credentials, settings } = loadIntegration(deps, doc);
  const result = await verifyCredentials(deps, def, {
    connectionId: doc._id,
    credentials,
    settings,
    log: request.log,
  });
  const lastTestedAt = result.verified ? new Date() : undefined;
  const updated = result.ok
    ? await markHealthy(deps, doc, { lastTestedAt })
    : await markFailing(deps, doc, result.message ?? 'the test call failed', {
        lastTestedAt,
        requestId: request.requestId,
      });
  const { failure: _failure, ...outcome } = result;
  return { ...outcome, connection: toConnection(updated ?? doc) };
}
