import { randomUUID } from 'node:crypto';
import { agentEvents, type Agent, type AgentConfig, type Identity } from '@platform/contracts';
import type { AgentDeps } from '../deps.ts';
import { agentModel } from '../models/agent.ts';
import { agentVersionModel, versionKey } from '../models/agent-version.ts';
import { checkReferences } from './check-references.ts';
import { actorOf, requireWriter } from './roles.ts';
import { toAgent } from './views.ts';

/** Creates an agent at version 1 (the version first: an agent never exists without its configuration). */
export async function createAgent(
  deps: AgentDeps,
  identity: Identity,
  config: AgentConfig,
  requestId: string,
): Promise<Agent> {
  requireWriter(identity);
  const { orgId } = identity;
  await checkReferences(deps, orgId, config, requestId);
  const id = `agt_${randomUUID().replace(/-/g, '')}`;
  const now = deps.now();
  const json = JSON.stringify(config);
  const createdBy = actorOf(identity);
  await agentVersionModel(deps.db).create({
    _id: versionKey(id, 1),
    orgId,
    agentId: id,
    version: 1,
    config: json,
    createdAt: now,
    createdBy,
  });
  const doc = await agentModel(deps.db).create({
    _id: id,
    orgId,
    name: config.name,
    nameLower: config.name.toLowerCase(),
    config: json,
    version: 1,
    status: 'active',
    createdAt: now,
    updatedAt: now,
    archivedAt: null,
    createdBy,
  });
  await deps.outbox.publish(
    agentEvents.created,
    orgId,
    { agentId: id, name: config.name, version: 1, status: 'active' },
    { requestId },
  );
  return toAgent(doc.toObject());
}
