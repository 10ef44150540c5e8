import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';

/** One version of an agent's configuration; written once, never changed. `_id` is `<agentId>:<version>`. */
export interface AgentVersionDoc {
  _id: string;
  orgId: string;
  agentId: string;
  version: number;
  config: string;
  createdAt: Date;
  createdBy: string;
}

const schema = new Schema<AgentVersionDoc>(
  {
    _id: { type: String, required: true },
    orgId: { type: String, required: true },
    agentId: { type: String, required: true },
    version: { type: Number, required: true },
    config: { type: String, required: true },
    createdAt: { type: Date, required: true },
    createdBy: { type: String, required: true },
  },
  { versionKey: false },
);
// The versions list of an agent, newest first (paginate sorts version, _id descending). One version is
// read by `_id` (the pinned configuration of a session).
schema.index({ orgId: 1, agentId: 1, version: -1, _id: -1 });

export function agentVersionModel(conn: Connection) {
  return modelOn<AgentVersionDoc>(conn, 'AgentVersion', schema, 'agent_versions');
}

export const versionKey = (agentId: string, version: number) => `${agentId}:${version}`;
