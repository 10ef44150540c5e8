import type { z } from 'zod';
import type { ExecutionListQuery, ExecutionSummary } from '@platform/contracts';
import { paginate, type Page } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import { executionModel, type ExecutionDoc } from '../models/execution.ts';
import { toSummary } from './views.ts';

/** An organization's executions, newest first, filtered by workflow, status and queue time. */
export async function listExecutions(
  deps: ExecutionDeps,
  orgId: string,
  query: z.infer<typeof ExecutionListQuery>,
): Promise<Page<ExecutionSummary>> {
  const filter: Record<string, unknown> = { orgId };
  if (query.workflowId) filter.workflowId = query.workflowId;
  if (query.status) filter.status = query.status;
  if (query.startedFrom || query.startedTo) {
    filter.createdAt = {
      ...(query.startedFrom ? { $gte: new Date(query.startedFrom) } : {}),
      ...(query.startedTo ? { $lt: new Date(query.startedTo) } : {}),
    };
  }
  return paginate<ExecutionDoc, ExecutionSummary>(executionModel(deps.db), filter as never, query, (doc) =>
    toSummary(doc),
  );
}
