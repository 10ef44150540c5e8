import type { z } from 'zod';
import type { Connection, ConnectionListQuery, Identity } from '@platform/contracts';
import { NotFoundError, paginate, type Page } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { connectionModel, type ConnectionDoc } from '../models/connection.ts';
import { toConnection } from './views.ts';

/** The organization's connections, newest first, filtered by integration and/or status. */
export function listConnections(
  deps: IntegrationDeps,
  identity: Identity,
  query: z.infer<typeof ConnectionListQuery>,
): Promise<Page<Connection>> {
  const filter: { orgId: string; integrationId?: string; status?: string } = { orgId: identity.orgId };
  if (query.integrationId) filter.integrationId = query.integrationId;
  if (query.status) filter.status = query.status;
  return paginate(connectionModel(deps.db), filter, query, toConnection);
}

/** One connection of the caller's organization; another organization's is "not found". */
export async function findConnection(
  deps: IntegrationDeps,
  orgId: string,
  id: string,
): Promise<ConnectionDoc> {
  const doc = await connectionModel(deps.db).findOne({ _id: id, orgId }).lean<ConnectionDoc>();
  if (!doc) throw new NotFoundError(`No connection "${id}" in this organization`);
  return doc;
}

export async function getConnection(deps: IntegrationDeps, orgId: string, id: string): Promise<Connection> {
  return toConnection(await findConnection(deps, orgId, id));
}
