import type { AgentConfig, PageQuery } from '@platform/contracts';
import { NotFoundError, paginate } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { agentModel, type AgentDoc } from '../models/agent.ts';
import { agentVersionModel, versionKey } from '../models/agent-version.ts';
import { configOf, toSummary, toVersion, toVersionSummary } from './views.ts';

/**
 * Reads of agents and their versions; every one is scoped to the caller's organization. Reads of one
 * document go by `_id` alone with the organization compared here (FerretDB 1.24 uses an index only
 * for a filter on `_id` alone); another organization's document is answered like a missing one.
 */
export async function findAgent(deps: AgentDeps, orgId: string, id: string): Promise<AgentDoc> {
  const doc = await agentModel(deps.db).findById(id).lean<AgentDoc>();
  if (!doc || doc.orgId !== orgId) throw new NotFoundError(`No agent ${id}`);
  return doc;
}

async function findVersion(deps: AgentDeps, orgId: string, agentId: string, version: number) {
  const doc = await agentVersionModel(deps.db).findById(versionKey(agentId, version)).lean();
  if (!doc || doc.orgId !== orgId) throw new NotFoundError(`Agent ${agentId} has no version ${version}`);
  return doc;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function listAgents(
  deps: AgentDeps,
  orgId: string,
  query: PageQuery & { search?: string; status?: 'active' | 'archived' },
) {
  const filter = {
    orgId,
    ...(query.status ? { status: query.status } : {}),
    ...(query.search ? { nameLower: { $regex: escapeRegex(query.search.toLowerCase()) } } : {}),
  };
  return paginate(agentModel(deps.db), filter, query, toSummary);
}

export async function listVersions(deps: AgentDeps, orgId: string, agentId: string, page: PageQuery) {
  await findAgent(deps, orgId, agentId);
  return paginate(agentVersionModel(deps.db), { orgId, agentId }, page, toVersionSummary, {
    sortField: 'version',
    sortIsDate: false,
  });
}

export async function getVersion(deps: AgentDeps, orgId: string, agentId: string, version: number) {
  return toVersion(await findVersion(deps, orgId, agentId, version));
}

// Versions never change once written, so the ones sessions talk to are kept in memory (most recent used).
const versionCache = new Map<string, AgentConfig>();
const VERSION_CACHE_SIZE = 1000;

/** The configuration a session talks to: the version it started on. */
export async function versionConfig(
  deps: AgentDeps,
  orgId: string,
  agentId: string,
  version: number,
): Promise<AgentConfig> {
  const key = `${orgId}:${versionKey(agentId, version)}`;
  const cached = versionCache.get(key);
  if (cached) {
    versionCache.delete(key);
    versionCache.set(key, cached);
    return cached;
  }
  const config = configOf(await findVersion(deps, orgId, agentId, version));
  versionCache.set(key, config);
  if (versionCache.size > VERSION_CACHE_SIZE) versionCache.delete(versionCache.keys().next().value!);
  return config;
}
