import type { ApiKey, Member, Organization, User } from '@platform/contracts';
import type { ApiKeyDoc } from '../models/api-key.ts';
import type { OrganizationDoc } from '../models/organization.ts';
import type { UserDoc } from '../models/user.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function toOrganization(doc: OrganizationDoc): Organization {
  return { id: doc._id, name: doc.name, plan: doc.plan, createdAt: doc.createdAt.toISOString() };
}

export function toUser(doc: UserDoc): User {
  return { id: doc._id, email: doc.email, createdAt: doc.createdAt.toISOString() };
}

export function toMember(doc: UserDoc): Member {
  return {
    id: doc._id,
    email: doc.email,
    role: doc.role,
    status: doc.status ?? 'active',
    createdAt: doc.createdAt.toISOString(),
  };
}

/** Never the secret: its first characters and last four only. */
export function toApiKey(doc: ApiKeyDoc): ApiKey {
  const graceRunning = doc.previousSecretExpiresAt && doc.previousSecretExpiresAt.getTime() > Date.now();
  return {
    id: doc._id,
    name: doc.name,
    role: doc.role,
    prefix: doc.prefix,
    lastFour: doc.lastFour,
    createdAt: doc.createdAt.toISOString(),
    createdBy: doc.createdBy,
    lastUsedAt: iso(doc.lastUsedAt),
    expiresAt: iso(doc.expiresAt),
    previousSecretExpiresAt: graceRunning ? iso(doc.previousSecretExpiresAt) : null,
  };
}
