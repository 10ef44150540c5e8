import { randomUUID } from 'node:crypto';
import {
  triggerConfigSchemas,
  workflowEvents,
  type CreateWorkflowBody,
  type Identity,
  type Workflow,
} from '@platform/contracts';
import type { WorkflowDeps } from '../deps.ts';
import { versionIdOf, workflowVersionModel } from '../models/workflow-version.ts';
import { workflowModel, type WorkflowDoc } from '../models/workflow.ts';
import { requireWriter } from './roles.ts';
import { syncTriggers } from './sync-triggers.ts';
import { validateDefinition } from './validate-definition.ts';
import { toWorkflow } from './views.ts';
import { newWebhookSecret } from './webhook-secret.ts';

export async function createWorkflow(
  deps: WorkflowDeps,
  identity: Identity,
  body: CreateWorkflowBody,
  requestId: string,
): Promise<Workflow> {
  requireWriter(identity);
  validateDefinition(body);
  const id = `wf_${randomUUID().replace(/-/g, '')}`;
  const now = new Date();
  const triggerConfig = triggerConfigSchemas[body.trigger].parse(body.triggerConfig ?? {});
  const webhook =
    body.trigger === 'webhook' ? newWebhookSecret(deps.config.KEY_ENCRYPTION_KEYS, id) : undefined;
  const doc: WorkflowDoc = {
    _id: id,
    orgId: identity.orgId,
    name: body.name,
    ...(body.description ? { description: body.description } : {}),
    trigger: body.trigger,
    triggerConfigJson: JSON.stringify(triggerConfig),
    stepsJson: JSON.stringify(body.steps),
    active: body.active,
    version: 1,
    ...(body.timeoutMs ? { timeoutMs: body.timeoutMs } : {}),
    ...(body.concurrencyLimit ? { concurrencyLimit: body.concurrencyLimit } : {}),
    ...(webhook ? { webhookSecretSealed: webhook.sealed } : {}),
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  await workflowVersionModel(deps.db).create({
    _id: versionIdOf(id, 1),
    orgId: doc.orgId,
    workflowId: id,
    version: 1,
    name: doc.name,
    stepsJson: doc.stepsJson,
    ...(doc.timeoutMs ? { timeoutMs: doc.timeoutMs } : {}),
    ...(doc.concurrencyLimit ? { concurrencyLimit: doc.concurrencyLimit } : {}),
    createdAt: now,
  });
  await workflowModel(deps.db).create(doc);
  const nextRunAt = await syncTriggers(deps, doc);
  await deps.outbox.publish(
    workflowEvents.created,
    doc.orgId,
    { workflowId: id, name: doc.name, version: 1, trigger: doc.trigger },
    { requestId },
  );
  return toWorkflow(deps.config, doc, {
    ...(webhook ? { secret: webhook.secret } : {}),
    ...(nextRunAt ? { nextRunAt } : {}),
  });
}
