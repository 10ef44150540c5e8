import { NotFoundError } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { workflowModel, type WorkflowDoc } from '../models/workflow.ts';

/**
 * A live workflow of the organization, or 404. Looked up by `_id` alone and the organization
 * checked here: FerretDB uses an index only for a filter on `_id` alone. Another organization's
 * workflow and a deleted one are answered exactly like a missing one.
 */
export async function findWorkflow(deps: WorkflowDeps, orgId: string, id: string): Promise<WorkflowDoc> {
  return ofOrganization(await readWorkflow(deps, id), orgId);
}

/** The stored workflow by `_id` (any organization, deleted ones included), or null. */
export async function readWorkflow(deps: WorkflowDeps, id: string): Promise<WorkflowDoc | null> {
  // The driver's own findOne: mongoose's query building costs more than the read on a hot path.
  return (await workflowModel(deps.db).collection.findOne({ _id: id } as never)) as WorkflowDoc | null;
}

/** The workflow if it is a live one of the organization; else the 404 every lookup answers. */
export function ofOrganization(doc: WorkflowDoc | null | undefined, orgId: string): WorkflowDoc {
  if (!doc || doc.orgId !== orgId || doc.deletedAt) throw new NotFoundError('Workflow not found');
  return doc;
}
