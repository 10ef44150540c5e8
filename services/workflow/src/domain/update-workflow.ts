import {
  triggerConfigSchemas,
  workflowEvents,
  type Identity,
  type UpdateWorkflowBody,
  type Workflow,
} from '@platform/contracts';
import { ConflictError } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { versionIdOf, workflowVersionModel } from '../models/workflow-version.ts';
import { workflowModel, type WorkflowDoc } from '../models/workflow.ts';
import { findWorkflow } from './find-workflow.ts';
import { requireWriter } from './roles.ts';
import { syncTriggers } from './sync-triggers.ts';
import { validateDefinition } from './validate-definition.ts';
import { toWorkflow } from './views.ts';
import { newWebhookSecret } from './webhook-secret.ts';

/**
 * A full update: the definition becomes version N+1 (executions already started keep the version
 * they run). The version insert is unique, so of two updates racing from the same version one wins
 * and the other gets a 409. A webhook secret is kept unless rotated or the trigger changes to webhook.
 */
export async function updateWorkflow(
  deps: WorkflowDeps,
  identity: Identity,
  id: string,
  body: UpdateWorkflowBody,
  requestId: string,
): Promise<Workflow> {
  requireWriter(identity);
  const current = await findWorkflow(deps, identity.orgId, id);
  validateDefinition(body);
  const version = current.version + 1;
  const now = new Date();
  const triggerConfig = triggerConfigSchemas[body.trigger].parse(body.triggerConfig ?? {});
  const needsSecret =
    body.trigger === 'webhook' && (!current.webhookSecretSealed || body.rotateWebhookSecret === true);
  const webhook = needsSecret ? newWebhookSecret(deps.config.KEY_ENCRYPTION_KEYS, id) : undefined;
  const sealed = body.trigger === 'webhook' ? (webhook?.sealed ?? current.webhookSecretSealed) : undefined;
  const next: WorkflowDoc = {
    _id: id,
    orgId: current.orgId,
    name: body.name,
    ...(body.description ? { description: body.description } : {}),
    trigger: body.trigger,
    triggerConfigJson: JSON.stringify(triggerConfig),
    stepsJson: JSON.stringify(body.steps),
    active: body.active,
    version,
    ...(body.timeoutMs ? { timeoutMs: body.timeoutMs } : {}),
    ...(body.concurrencyLimit ? { concurrencyLimit: body.concurrencyLimit } : {}),
    ...(sealed ? { webhookSecretSealed: sealed } : {}),
    createdAt: current.createdAt,
    updatedAt: now,
    deletedAt: null,
  };
  try {
    await workflowVersionModel(deps.db).create({
      _id: versionIdOf(id, version),
      orgId: next.orgId,
      workflowId: id,
      version,
      name: next.name,
      stepsJson: next.stepsJson,
      ...(next.timeoutMs ? { timeoutMs: next.timeoutMs } : {}),
      ...(next.concurrencyLimit ? { concurrencyLimit: next.concurrencyLimit } : {}),
      createdAt: now,
    });
  } catch (err) {
    if ((err as { code?: number }).code === 11000) {
      throw new ConflictError('The workflow was changed at the same time; read it again and retry');
    }
    throw err;
  }
  await workflowModel(deps.db).replaceOne({ _id: id }, next);
  deps.workflows.evict(id); // other replicas drop it when the `updated` event arrives
  const nextRunAt = await syncTriggers(deps, next);
  await deps.outbox.publish(
    workflowEvents.updated,
    next.orgId,
    { workflowId: id, name: next.name, version, trigger: next.trigger },
    { requestId },
  );
  return toWorkflow(deps.config, next, {
    ...(webhook ? { secret: webhook.secret } : {}),
    ...(nextRunAt ? { nextRunAt } : {}),
  });
}
