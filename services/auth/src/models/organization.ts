import { Schema, type Connection } from 'mongoose';
import { modelOn } from '@platform/kit';
import { randomUUID } from 'node:crypto';

export interface OrganizationDoc {
  _id: string;
  name: string;
  plan: string;
  createdAt: Date;
}

const schema = new Schema<OrganizationDoc>(
  {
    _id: { type: String, default: () => `org_${randomUUID().replace(/-/g, '')}` },
    name: { type: String, required: true },
    plan: { type: String, required: true },
    createdAt: { type: Date, default: () => new Date() },
  },
  { versionKey: false },
);

export function organizationModel(conn: Connection) {
  return modelOn<OrganizationDoc>(conn, 'Organization', schema, 'organizations');
}
