import type { Connection } from '@platform/contracts';
import type { ConnectionDoc } from '../models/connection.ts';

/** A connection as the API shows it: never its credentials, not even a hint of them. */
export function toConnection(doc: ConnectionDoc): Connection {
  return {
    id: doc._id,
    integrationId: doc.integrationId,
    name: doc.name,
    authKind: doc.authKind,
    settings: doc.settings ?? {},
    status: doc.status,
    statusReason: doc.statusReason ?? null,
    lastTestedAt: doc.lastTestedAt ? doc.lastTestedAt.toISOString() : null,
    lastUsedAt: doc.lastUsedAt ? doc.lastUsedAt.toISOString() : null,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}
