import { z } from 'zod';
import type { WorkflowDeps } from '../deps.ts';
import { workflowModel, type WorkflowDoc } from '../models/workflow.ts';
import { derivedExecutionId } from './derived-id.ts';
import { requestExecution } from './request-execution.ts';

/** The envelope every domain event has (libs/contracts/src/events.ts). */
export const EventEnvelope = z
  .object({
    id: z.string().min(1),
    type: z.string().min(1),
    createdAt: z.string(),
    orgId: z.string().min(1),
    data: z.unknown(),
  })
  .passthrough();
export type EventEnvelope = z.infer<typeof EventEnvelope>;

function valueAt(root: unknown, path: string): unknown {
  let v = root;
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

export function matchesWhere(event: EventEnvelope, where: Record<string, unknown>): boolean {
  return Object.entries(where).every(([path, expected]) => valueAt(event, path) === expected);
}

/**
 * Starts the event-triggered workflows an event matches (same organization, type, `where`). An
 * event older than the trigger does not count, and a workflow is not started by the events of its
 * own executions (no loops). The execution id derives from the event, so a redelivered event starts
 * nothing new.
 */
export async function onEvent(deps: WorkflowDeps, event: EventEnvelope, requestId: string): Promise<number> {
  const triggers = deps.eventTriggers.match(event.orgId, event.type);
  let started = 0;
  for (const trigger of triggers) {
    if (new Date(event.createdAt) < trigger.activeSince) continue;
    if (event.type.startsWith('execution.') && valueAt(event, 'data.workflowId') === trigger._id) continue;
    if (!matchesWhere(event, JSON.parse(trigger.whereJson) as Record<string, unknown>)) continue;
    const wf = await workflowModel(deps.db).findById(trigger._id).lean<WorkflowDoc>();
    if (!wf || wf.deletedAt || !wf.active || wf.trigger !== 'event' || wf.orgId !== event.orgId) continue;
    await requestExecution(
      deps,
      wf,
      { event },
      { kind: 'event', eventId: event.id, eventType: event.type },
      { executionId: derivedExecutionId('event', event.id, wf._id), requestId },
    );
    started++;
  }
  return started;
}
