import { connectionEvents } from '@platform/contracts';
import type { IntegrationDeps } from '../deps.ts';
import { connectionModel, type ConnectionDoc } from '../models/connection.ts';

/**
 * Status changes caused by tests and uses. The conditional updates make the active → failing
 * transition happen once across replicas, and only that transition publishes evt.connection.failing.
 */
export async function markFailing(
  deps: IntegrationDeps,
  doc: ConnectionDoc,
  reason: string,
  extra: { lastTestedAt?: Date; requestId?: string } = {},
): Promise<ConnectionDoc | null> {
  const now = new Date();
  const set = { status: 'failing', statusReason: reason.slice(0, 500), updatedAt: now, ...pick(extra) };
  const model = connectionModel(deps.db);
  const turned = await model
    .findOneAndUpdate({ _id: doc._id, orgId: doc.orgId, status: 'active' }, { $set: set }, { new: true })
    .lean<ConnectionDoc>();
  if (turned) {
    await deps.outbox.publish(
      connectionEvents.failing,
      doc.orgId,
      { connectionId: doc._id, integrationId: doc.integrationId, name: doc.name, reason: set.statusReason },
      { requestId: extra.requestId },
    );
    return turned;
  }
  // Already failing (or revoked meanwhile): keep the latest reason, no event.
  return model
    .findOneAndUpdate({ _id: doc._id, orgId: doc.orgId, status: 'failing' }, { $set: set }, { new: true })
    .lean<ConnectionDoc>();
}

export async function markHealthy(
  deps: IntegrationDeps,
  doc: ConnectionDoc,
  extra: { lastTestedAt?: Date } = {},
): Promise<ConnectionDoc | null> {
  const set = { status: 'active', statusReason: null, ...pick(extra) };
  return connectionModel(deps.db)
    .findOneAndUpdate(
      { _id: doc._id, orgId: doc.orgId, status: { $in: ['active', 'failing'] } },
      { $set: doc.status === 'failing' ? { ...set, updatedAt: new Date() } : set },
      { new: true },
    )
    .lean<ConnectionDoc>();
}

/** lastUsedAt, written at most once a minute per connection so busy connections cost no write per call. */
export async function touchUsed(deps: IntegrationDeps, doc: ConnectionDoc) {
  const now = new Date();
  if (doc.lastUsedAt && now.getTime() - doc.lastUsedAt.getTime() < 60_000) return;
  await connectionModel(deps.db).updateOne({ _id: doc._id, orgId: doc.orgId }, { $set: { lastUsedAt: now } });
}

function pick(extra: { lastTestedAt?: Date }) {
  return extra.lastTestedAt ? { lastTestedAt: extra.lastTestedAt } : {};
}
