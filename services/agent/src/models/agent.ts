import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/**
 * An agent: its current configuration (the JSON of AgentConfig, kept as text so that tool argument
 * schemas may use keys such as `$ref` that FerretDB refuses as field names) and its current version.
 * Every version's configuration is also in `agent_versions`; sessions talk to the version they started on.
 */
export interface AgentDoc {
  _id: string;
  orgId: string;
  name: string;
  /** Lower-case name, for the case-insensitive search of the list. */
  nameLower: string;
  config: string;
  version: number;
  status: 'active' | 'archived';
  createdAt: Date;
  updatedAt: Date;
  archivedAt: Date | null;
  createdBy: string;
}

const schema = new Schema<AgentDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    name: { type: String, required: true },
    nameLower: { type: String, required: true },
    config: { type: String, required: true },
    version: { type: Number, required: true },
    status: { type: String, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    archivedAt: { type: Date, default: null },
    createdBy: { type: String, required: true },
  },
  { versionKey: false },
);
// The list of an organization's agents, newest first (the name search filters within it).
schema.index({ orgId: 1, createdAt: -1, _id: -1 });
// The list filtered by status (active or archived), newest first.
schema.index({ orgId: 1, status: 1, createdAt: -1, _id: -1 });

export function agentModel(conn: Connection) {
  return modelOn<AgentDoc>(conn, 'Agent', schema, 'agents');
}
