import type { Express } from 'express';
import { executeWorkflowRoute, workflowRoutes } from '@platform/contracts';
import { idempotencyKeyOf, mountRoute } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { createWorkflow } from '../domain/create-workflow.ts';
import { deleteWorkflow } from '../domain/delete-workflow.ts';
import { executeWorkflow } from '../domain/execute-workflow.ts';
import { findWorkflow } from '../domain/find-workflow.ts';
import { listWorkflows } from '../domain/list-workflows.ts';
import { updateWorkflow } from '../domain/update-workflow.ts';
import { scheduleModel } from '../models/schedule.ts';
import { toWorkflow } from '../domain/views.ts';

export function mountWorkflowRoutes(app: Express, deps: WorkflowDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;
  mountRoute(app, workflowRoutes.list, secret, ({ identity, query }) =>
    listWorkflows(deps, identity.orgId, query),
  );
  mountRoute(app, workflowRoutes.create, secret, ({ identity, body, requestId }) =>
    createWorkflow(deps, identity, body, requestId),
  );
  mountRoute(app, workflowRoutes.get, secret, async ({ identity, params }) => {
    const doc = await findWorkflow(deps, identity.orgId, params.id);
    const schedule =
      doc.trigger === 'schedule' ? await scheduleModel(deps.db).findById(doc._id).lean() : null;
    return toWorkflow(deps.config, doc, schedule ? { nextRunAt: schedule.nextRunAt } : {});
  });
  mountRoute(app, workflowRoutes.update, secret, ({ identity, params, body, requestId }) =>
    updateWorkflow(deps, identity, params.id, body, requestId),
  );
  mountRoute(app, workflowRoutes.remove, secret, ({ identity, params, requestId }) =>
    deleteWorkflow(deps, identity, params.id, requestId),
  );
  mountRoute(app, executeWorkflowRoute, secret, ({ identity, params, body, req, requestId }) =>
    executeWorkflow(deps, identity, params.id, body.input, idempotencyKeyOf(req), requestId),
  );
}
