import type { z } from 'zod';
import type { Workflow, WorkflowListQuery } from '@platform/contracts';
import { paginate, type Page } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { workflowModel, type WorkflowDoc } from '../models/workflow.ts';
import { toWorkflow } from './views.ts';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** An organization's live workflows, newest first; name search, trigger kind and active filters. */
export async function listWorkflows(
  deps: WorkflowDeps,
  orgId: string,
  query: z.infer<typeof WorkflowListQuery>,
): Promise<Page<Workflow>> {
  const filter: Record<string, unknown> = { orgId, deletedAt: null };
  if (query.search) filter.name = { $regex: escapeRegex(query.search), $options: 'i' };
  if (query.trigger) filter.trigger = query.trigger;
  if (query.active) filter.active = query.active === 'true';
  return paginate<WorkflowDoc, Workflow>(workflowModel(deps.db), filter as never, query, (doc) =>
    toWorkflow(deps.config, doc),
  );
}
