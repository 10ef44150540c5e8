import {
  AgentConfig,
  agentEvents,
  type Agent,
  type Identity,
  type UpdateAgentBody,
} from '@platform/contracts';
import { ConflictError, toFieldErrors, ValidationError } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { agentModel } from '../models/agent.ts';
import { agentVersionModel, versionKey } from '../models/agent-version.ts';
import { findAgent } from './agents.ts';
import { checkReferences } from './check-references.ts';
import { agentLock } from './locks.ts';
import { actorOf, requireWriter } from './roles.ts';
import { configOf, toAgent } from './views.ts';

/**
 * Changes the fields given (the others keep their values) as a new version. Changes of one agent are
 * made one at a time under its lock (concurrent PUTs wait their turn and become consecutive versions;
 * one naming a stale `expectedVersion` gets 409); the version document is written first and its unique
 * `_id` is a second guard against two version N+1. An update that changes nothing makes no version.
 */
export async function updateAgent(
  deps: AgentDeps,
  identity: Identity,
  id: string,
  input: UpdateAgentBody,
  requestId: string,
): Promise<Agent> {
  requireWriter(identity);
  const { orgId } = identity;
  const { expectedVersion, ...changes } = input;
  await findAgent(deps, orgId, id); // 404 before waiting for a lock
  return agentLock(deps, id, async () => {
    const doc = await findAgent(deps, orgId, id);
    if (doc.status === 'archived') throw new ConflictError('An archived agent cannot be changed');
    if (expectedVersion !== undefined && expectedVersion !== doc.version) {
      throw new ConflictError(`The agent is at version ${doc.version}, not ${expectedVersion}`);
    }
    const parsed = AgentConfig.safeParse({ ...configOf(doc), ...changes });
    if (!parsed.success) throw new ValidationError(toFieldErrors(parsed.error.issues, 'body'));
    const json = JSON.stringify(parsed.data);
    if (json === JSON.stringify(configOf(doc))) return toAgent(doc);
    await checkReferences(deps, orgId, parsed.data, requestId, id);
    const version = doc.version + 1;
    const now = deps.now();
    try {
      await agentVersionModel(deps.db).create({
        _id: versionKey(id, version),
        orgId,
        agentId: id,
        version,
        config: json,
        createdAt: now,
        createdBy: actorOf(identity),
      });
    } catch (err) {
      if ((err as { code?: number }).code === 11000)
        throw new ConflictError('The agent changed meanwhile; retry');
      throw err;
    }
    const set = {
      config: json,
      name: parsed.data.name,
      nameLower: parsed.data.name.toLowerCase(),
      version,
      updatedAt: now,
    };
    await agentModel(deps.db).updateOne({ _id: id, orgId }, { $set: set });
    await deps.outbox.publish(
      agentEvents.updated,
      orgId,
      { agentId: id, name: parsed.data.name, version, status: 'active' },
      { requestId },
    );
    return toAgent({ ...doc, ...set });
  });
}
