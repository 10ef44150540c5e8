import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { workflowEvents } from '@platform/contracts';
import { watchEvents } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import type { WorkflowDoc } from '../models/workflow.ts';
import { ofOrganization, readWorkflow } from './find-workflow.ts';

/** Entries beyond this are dropped oldest first (a bound on memory, not a tuning knob). */
const MAX_ENTRIES = 10_000;

/**
 * Live workflows read by the execute paths (API execute, webhook hooks), so that starting an
 * execution costs no read of storage: measured at a fifth of the workflow service's CPU per
 * execution. An entry lives WORKFLOW_CACHE_TTL_MS at most; this replica drops it when it updates
 * or deletes the workflow, every other replica when the `workflow.updated`/`deleted` event
 * arrives (milliseconds), and everything is dropped after a NATS reconnect (events may have been
 * missed). Reads that decide a change (update, delete, GET) always go to storage.
 */
export class WorkflowCache {
  private readonly entries = new Map<string, { doc: WorkflowDoc; at: number }>();
  private subscriptions: Subscription[] = [];

  constructor(private readonly ttlMs: number) {}

  listen(nc: NatsConnection) {
    this.subscriptions = watchEvents(nc, [workflowEvents.updated, workflowEvents.deleted], (event) =>
      this.evict(event.data.workflowId),
    );
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'reconnect') this.entries.clear();
    })();
  }

  get(id: string): WorkflowDoc | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (Date.now() - entry.at > this.ttlMs) {
      this.entries.delete(id);
      return undefined;
    }
    return entry.doc;
  }

  set(doc: WorkflowDoc) {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(doc._id, { doc, at: Date.now() });
  }

  evict(id: string) {
    this.entries.delete(id);
  }

  stop() {
    for (const s of this.subscriptions) s.unsubscribe();
    this.entries.clear();
  }
}

/** A live workflow (any organization) for starting an execution: cached, else read and cached. */
export async function liveWorkflowToRun(deps: WorkflowDeps, id: string): Promise<WorkflowDoc | undefined> {
  const cached = deps.workflows.get(id);
  if (cached) return cached;
  const doc = await readWorkflow(deps, id);
  if (!doc || doc.deletedAt) return undefined;
  deps.workflows.set(doc);
  return doc;
}

/** As findWorkflow (another organization's or a deleted workflow is a 404), for the execute path. */
export async function findWorkflowToRun(deps: WorkflowDeps, orgId: string, id: string): Promise<WorkflowDoc> {
  return ofOrganization(await liveWorkflowToRun(deps, id), orgId);
}
