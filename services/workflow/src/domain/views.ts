import type { Step, Workflow, WorkflowSnapshot } from '@platform/contracts';
import type { WorkflowConfig } from '../deps.ts';
import type { WorkflowDoc } from '../models/workflow.ts';

export function hookUrl(config: WorkflowConfig, workflowId: string): string {
  return `${config.PUBLIC_BASE_URL.replace(/\/$/, '')}/api/v1/hooks/${workflowId}`;
}

export function toWorkflow(
  config: WorkflowConfig,
  doc: WorkflowDoc,
  extra: { secret?: string; nextRunAt?: Date } = {},
): Workflow {
  return {
    id: doc._id,
    name: doc.name,
    ...(doc.description ? { description: doc.description } : {}),
    trigger: doc.trigger,
    triggerConfig: JSON.parse(doc.triggerConfigJson) as Record<string, unknown>,
    steps: JSON.parse(doc.stepsJson) as Step[],
    active: doc.active,
    version: doc.version,
    ...(doc.timeoutMs ? { timeoutMs: doc.timeoutMs } : {}),
    ...(doc.concurrencyLimit ? { concurrencyLimit: doc.concurrencyLimit } : {}),
    ...(doc.trigger === 'webhook'
      ? { webhook: { url: hookUrl(config, doc._id), ...(extra.secret ? { secret: extra.secret } : {}) } }
      : {}),
    ...(extra.nextRunAt ? { nextRunAt: extra.nextRunAt.toISOString() } : {}),
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
  };
}

export function toSnapshot(doc: {
  _id?: string;
  workflowId?: string;
  name: string;
  version: number;
  stepsJson: string;
  timeoutMs?: number;
  concurrencyLimit?: number;
}): WorkflowSnapshot {
  return {
    workflowId: doc.workflowId ?? doc._id!,
    name: doc.name,
    version: doc.version,
    steps: JSON.parse(doc.stepsJson) as Step[],
    ...(doc.timeoutMs ? { timeoutMs: doc.timeoutMs } : {}),
    ...(doc.concurrencyLimit ? { concurrencyLimit: doc.concurrencyLimit } : {}),
  };
}
