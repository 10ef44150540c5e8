import { agentEvents, type Agent, type Identity } from '@platform/contracts';
import type { AgentDeps } from '../deps.ts';
import { agentModel } from '../models/agent.ts';
import { findAgent } from './agents.ts';
import { agentLock } from './locks.ts';
import { requireWriter } from './roles.ts';
import { toAgent } from './views.ts';

/**
 * Archives an agent instead of deleting it: it refuses new sessions, while its sessions (and those
 * still Active) stay readable and can be continued. Archiving an archived agent changes nothing.
 */
export async function archiveAgent(
  deps: AgentDeps,
  identity: Identity,
  id: string,
  requestId: string,
): Promise<Agent> {
  requireWriter(identity);
  const { orgId } = identity;
  await findAgent(deps, orgId, id);
  return agentLock(deps, id, async () => {
    const doc = await findAgent(deps, orgId, id);
    if (doc.status === 'archived') return toAgent(doc);
    const now = deps.now();
    const set = { status: 'archived' as const, archivedAt: now, updatedAt: now };
    await agentModel(deps.db).updateOne({ _id: id, orgId }, { $set: set });
    await deps.outbox.publish(
      agentEvents.updated,
      orgId,
      { agentId: id, name: doc.name, version: doc.version, status: 'archived' },
      { requestId },
    );
    return toAgent({ ...doc, ...set });
  });
}
