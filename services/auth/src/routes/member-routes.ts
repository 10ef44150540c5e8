import type { Express } from 'express';
import { authRoutes } from '@platform/contracts';
import { mountRoute } from '@platform/kit';
import type { AuthDeps } from '../deps.ts';
import { createMember } from '../domain/create-member.ts';
import { deleteMember } from '../domain/delete-member.ts';
import { listMembers } from '../domain/list-members.ts';
import { updateMember } from '../domain/update-member.ts';

export function mountMemberRoutes(app: Express, deps: AuthDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, authRoutes.listMembers, secret, ({ identity, query }) =>
    listMembers(deps, identity, query),
  );
  mountRoute(app, authRoutes.createMember, secret, ({ identity, body }) =>
    createMember(deps, identity, body),
  );
  mountRoute(app, authRoutes.updateMember, secret, ({ identity, params, body }) =>
    updateMember(deps, identity, params.id, body.role),
  );
  mountRoute(app, authRoutes.deleteMember, secret, ({ identity, params }) =>
    deleteMember(deps, identity, params.id),
  );
}
