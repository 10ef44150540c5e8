import type { Express } from 'express';
import { executionRoutes } from '@platform/contracts';
import { idempotencyKeyOf, mountRoute, withIdempotency } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import { cancelExecution } from '../domain/cancel-execution.ts';
import { getExecution } from '../domain/get-execution.ts';
import { getLogs } from '../domain/get-logs.ts';
import { listExecutions } from '../domain/list-executions.ts';
import { retryExecution } from '../domain/retry-execution.ts';

export function mountExecutionRoutes(app: Express, deps: ExecutionDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, executionRoutes.list, secret, ({ identity, query }) =>
    listExecutions(deps, identity.orgId, query),
  );
  mountRoute(app, executionRoutes.get, secret, ({ identity, params }) =>
    getExecution(deps, identity.orgId, params.id),
  );
  mountRoute(app, executionRoutes.logs, secret, ({ identity, params, query }) =>
    getLogs(deps, identity.orgId, params.id, query),
  );
  mountRoute(app, executionRoutes.retry, secret, async ({ identity, params, body, req, requestId }) => {
    const { result } = await withIdempotency(
      deps.db,
      { orgId: identity.orgId, scope: `retry:${params.id}`, key: idempotencyKeyOf(req), request: body },
      () => retryExecution(deps, identity, params.id, body, requestId),
    );
    return result;
  });
  mountRoute(app, executionRoutes.cancel, secret, ({ identity, params }) =>
    cancelExecution(deps, identity, params.id),
  );
}
