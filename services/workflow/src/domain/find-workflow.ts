import { NotFoundError } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { workflowModel, type WorkflowDoc } from '../models/workflow.ts';

/**
 * A live workflow of the organization, or 404. Looked up by `_id` alone and the organization
 * checked here: FerretDB uses an index only for a filter on `_id` alone. Another organization's
 * workflow and a deleted one are answered exactly like a missing one.
 */
export async function findWorkflow(deps: WorkflowDeps, orgId: string, id: string): Promise<WorkflowDoc> {
  const doc = await workflowModel(deps.db).findById(id).lean<WorkflowDoc>();
  if (!doc || doc.orgId !== orgId || doc.deletedAt) throw new NotFoundError('Workflow not found');
  return doc;
}
