import type { Express } from 'express';
import { workflowRoutes } from '@platform/contracts';
import { mountRoute } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { triggerHook } from '../domain/trigger-hook.ts';

/** The public webhook trigger: no internal identity; the workflow's secret is checked instead. */
export function mountHookRoutes(app: Express, deps: WorkflowDeps) {
  mountRoute(app, workflowRoutes.hook, deps.config.INTERNAL_TOKEN_SECRET, ({ params, req, requestId }) =>
    triggerHook(deps, params.workflowId, req, requestId),
  );
}
