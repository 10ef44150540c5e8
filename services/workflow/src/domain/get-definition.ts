import type { WorkflowSnapshot } from '@platform/contracts';
import { NotFoundError } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { versionIdOf, workflowVersionModel } from '../models/workflow-version.ts';
import { findWorkflow } from './find-workflow.ts';
import { toSnapshot } from './views.ts';

/** A version of a live workflow (the current one without `version`): child workflows, retries. */
export async function getDefinition(
  deps: WorkflowDeps,
  orgId: string,
  workflowId: string,
  version?: number,
): Promise<WorkflowSnapshot> {
  const current = await findWorkflow(deps, orgId, workflowId);
  if (version === undefined || version === current.version) return toSnapshot(current);
  const old = await workflowVersionModel(deps.db).findById(versionIdOf(workflowId, version)).lean();
  if (!old || old.orgId !== orgId) throw new NotFoundError(`Workflow version ${version} not found`);
  return toSnapshot(old);
}
