import type { Organization, User } from '@platform/contracts';
import type { OrganizationDoc } from '../models/organization.ts';
import type { UserDoc } from '../models/user.ts';

export function toOrganization(doc: OrganizationDoc): Organization {
  return { id: doc._id, name: doc.name, plan: doc.plan, createdAt: doc.createdAt.toISOString() };
}

export function toUser(doc: UserDoc): User {
  return { id: doc._id, email: doc.email, createdAt: doc.createdAt.toISOString() };
}
