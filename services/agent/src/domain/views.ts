import { AgentConfig, type Agent, type AgentSummary } from '@platform/contracts';
import type { AgentDoc } from '../models/agent.ts';
import type { AgentVersionDoc } from '../models/agent-version.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/** The stored configuration (validated when it was written; parsed again to fill newer defaults). */
export function configOf(doc: Pick<AgentDoc, 'config'>): AgentConfig {
  return AgentConfig.parse(JSON.parse(doc.config));
}

export function toAgent(doc: AgentDoc): Agent {
  return {
    id: doc._id,
    ...configOf(doc),
    version: doc.version,
    status: doc.status,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    archivedAt: iso(doc.archivedAt),
  };
}

export function toSummary(doc: AgentDoc): AgentSummary {
  const config = configOf(doc);
  return {
    id: doc._id,
    name: config.name,
    description: config.description,
    providerKind: config.provider.kind,
    model: config.model,
    channels: config.channels,
    toolCount: config.tools.length,
    version: doc.version,
    status: doc.status,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}

export function toVersionSummary(doc: AgentVersionDoc) {
  return {
    agentId: doc.agentId,
    version: doc.version,
    createdAt: doc.createdAt.toISOString(),
    createdBy: doc.createdBy,
  };
}

export function toVersion(doc: AgentVersionDoc) {
  return { ...toVersionSummary(doc), config: configOf(doc) };
}
