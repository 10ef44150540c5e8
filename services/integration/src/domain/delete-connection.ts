import { connectionEvents, type Identity } from '@platform/contracts';
import { NotFoundError } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { connectionModel, type ConnectionDoc } from '../models/connection.ts';
import { requireWriter } from './roles.ts';

/** Deletes a connection with its credentials; workflows that still name it get not_found. */
export async function deleteConnection(
  deps: IntegrationDeps,
  identity: Identity,
  id: string,
  requestId: string,
) {
  requireWriter(identity);
  const doc = await connectionModel(deps.db)
    .findOneAndDelete({ _id: id, orgId: identity.orgId })
    .lean<ConnectionDoc>();
  if (!doc) throw new NotFoundError(`No connection "${id}" in this organization`);
  await deps.outbox.publish(
    connectionEvents.deleted,
    identity.orgId,
    { connectionId: doc._id, integrationId: doc.integrationId, name: doc.name },
    { requestId },
  );
}
