import type { Express } from 'express';
import { agentRoutes } from '@platform/contracts';
import { idempotencyKeyOf, mountRoute, withIdempotency } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { findAgent, getVersion, listAgents, listVersions } from '../domain/agents.ts';
import { archiveAgent } from '../domain/archive-agent.ts';
import { createAgent } from '../domain/create-agent.ts';
import { requireWriter } from '../domain/roles.ts';
import { updateAgent } from '../domain/update-agent.ts';
import { toAgent } from '../domain/views.ts';

export function mountAgentRoutes(app: Express, deps: AgentDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, agentRoutes.list, secret, ({ identity, query }) => listAgents(deps, identity.orgId, query));
  mountRoute(app, agentRoutes.create, secret, async ({ identity, body, req, requestId }) => {
    requireWriter(identity);
    const { result } = await withIdempotency(
      deps.db,
      { orgId: identity.orgId, scope: 'agent.create', key: idempotencyKeyOf(req), request: body },
      () => createAgent(deps, identity, body, requestId),
    );
    return result;
  });
  mountRoute(app, agentRoutes.get, secret, async ({ identity, params }) =>
    toAgent(await findAgent(deps, identity.orgId, params.id)),
  );
  mountRoute(app, agentRoutes.update, secret, ({ identity, params, body, requestId }) =>
    updateAgent(deps, identity, params.id, body, requestId),
  );
  mountRoute(app, agentRoutes.archive, secret, ({ identity, params, requestId }) =>
    archiveAgent(deps, identity, params.id, requestId),
  );
  mountRoute(app, agentRoutes.versions, secret, ({ identity, params, query }) =>
    listVersions(deps, identity.orgId, params.id, query),
  );
  mountRoute(app, agentRoutes.version, secret, ({ identity, params }) =>
    getVersion(deps, identity.orgId, params.id, params.version),
  );
}
