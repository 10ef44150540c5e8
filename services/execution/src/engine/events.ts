import { executionEvents, type ExecutionStatus } from '@platform/contracts';
import { publishEvent } from '@platform/kit';
import type { ExecutionDeps } from '../deps.ts';
import type { ExecutionDoc } from '../models/execution.ts';

/**
 * `evt.execution.<state>` for a transition that is already stored. The event id is
 * `<executionId>.<state>` (also the Nats-Msg-Id) and its content is derived from the stored
 * document, so publishing it again (after a crash, on redelivery) gives the same event, which
 * JetStream drops as a duplicate. The execution document is thus its own outbox: no extra write.
 */
export async function publishTransition(
  deps: Pick<ExecutionDeps, 'js'>,
  doc: ExecutionDoc,
  status: ExecutionStatus,
  requestId?: string,
): Promise<void> {
  const at =
    status === 'queued'
      ? doc.createdAt
      : status === 'running'
        ? (doc.startedAt ?? doc.createdAt)
        : (doc.finishedAt ?? new Date());
  await publishEvent(
    deps.js,
    executionEvents[status],
    {
      id: `${doc._id}.${status}`,
      type: `execution.${status}`,
      createdAt: at.toISOString(),
      orgId: doc.orgId,
      data: {
        executionId: doc._id,
        workflowId: doc.workflowId,
        workflowVersion: doc.workflowVersion,
        status,
        trigger: doc.trigger.kind,
        ...(doc.error && status !== 'queued' && status !== 'running' ? { error: doc.error } : {}),
        ...(doc.finishedAt && doc.startedAt
          ? { durationMs: doc.finishedAt.getTime() - doc.startedAt.getTime() }
          : {}),
      },
    },
    { requestId },
  );
}
