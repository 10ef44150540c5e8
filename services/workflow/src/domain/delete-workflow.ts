import { workflowEvents, type Identity } from '@platform/contracts';
import type { WorkflowDeps } from '../deps.ts';
import { workflowModel } from '../models/workflow.ts';
import { findWorkflow } from './find-workflow.ts';
import { requireWriter } from './roles.ts';
import { syncTriggers } from './sync-triggers.ts';

/**
 * Deletes a workflow: it disappears from the API and its triggers stop; executions already queued
 * or running finish (they carry their version); new ones, retries included, are refused.
 */
export async function deleteWorkflow(deps: WorkflowDeps, identity: Identity, id: string, requestId: string) {
  requireWriter(identity);
  const doc = await findWorkflow(deps, identity.orgId, id);
  const now = new Date();
  await workflowModel(deps.db).updateOne(
    { _id: id },
    { $set: { deletedAt: now, active: false, updatedAt: now } },
  );
  deps.workflows.evict(id); // other replicas drop it when the `deleted` event arrives
  await syncTriggers(deps, { ...doc, deletedAt: now, active: false });
  await deps.outbox.publish(
    workflowEvents.deleted,
    doc.orgId,
    { workflowId: id, name: doc.name, version: doc.version, trigger: doc.trigger },
    { requestId },
  );
}
