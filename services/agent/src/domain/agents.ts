import type { AgentConfig, PageQuery } from '@platform/contracts';
import { NotFoundError, paginate } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { agentModel, type AgentDoc } from '../models/agent.ts';
import { agentVersionModel, versionKey } from '../models/agent-version.ts';
import { configOf, toSummary, toVersion, toVersionSummary } from './views.ts';

/** Reads of agents and their versions; every query is scoped to the caller's organization. */
export async function findAgent(deps: AgentDeps, orgId: string, id: string): Promise<AgentDoc> {
  const doc = await agentModel(deps.db).findOne({ _id: id, orgId }).lean();
  if (!doc) throw new NotFoundError(`No agent ${id}`);
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
  const doc = await agentVersionModel(deps.db)
    .findOne({ _id: versionKey(agentId, version), orgId })
    .lean();
  if (!doc) throw new NotFoundError(`Agent ${agentId} has no version ${version}`);
  return toVersion(doc);
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
  const doc = await agentVersionModel(deps.db)
    .findOne({ _id: versionKey(agentId, version), orgId })
    .lean();
  if (!doc) throw new NotFoundError(`Agent ${agentId} has no version ${version}`);
  const config = configOf(doc);
  versionCache.set(key, config);
  if (versionCache.size > VERSION_CACHE_SIZE) versionCache.delete(versionCache.keys().next().value!);
  return config;
}
