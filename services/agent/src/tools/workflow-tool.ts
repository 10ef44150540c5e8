import { createHash } from 'node:crypto';
import {
  executionRpc,
  terminalStatuses,
  workflowRpc,
  type AgentTool,
  type Execution,
} from '@platform/contracts';
import { NotFoundError, rpcRequest } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import type { ToolContext } from './toolbox.ts';

type WorkflowTool = Extract<AgentTool, { type: 'workflow' }>;

/** Whether the organization has this workflow (asked of the workflow service). */
export async function workflowExists(deps: AgentDeps, orgId: string, workflowId: string, requestId: string) {
  try {
    await rpcRequest(deps.nc, workflowRpc.getDefinition, { orgId, workflowId }, { requestId });
    return true;
  } catch (err) {
    if (err instanceof NotFoundError) return false;
    throw err;
  }
}

/** One call of the tool is one execution: its id is derived from the session, the turn and the call. */
export function toolExecutionId(orgId: string, sessionId: string, turn: number, callId: string): string {
  const digest = createHash('sha256').update(`${orgId}:${sessionId}:${turn}:${callId}`).digest('hex');
  return `exe_agent_${digest.slice(0, 32)}`;
}

const terminal = new Set<string>(terminalStatuses);

/**
 * Starts an execution of the workflow's current version with the arguments as input, and waits until
 * it finishes or `timeoutSeconds` pass. Waking up: the execution's terminal domain events
 * (`evt.execution.succeeded|failed|cancelled`, core NATS), with a poll as the safety net. The state is
 * read back with `svc.execution.get` (output included). The start itself is idempotent: a call
 * repeated (a retried turn) starts the same execution id, which answers the existing execution.
 */
export async function runWorkflowTool(
  ctx: ToolContext,
  tool: WorkflowTool,
  input: Record<string, unknown>,
  callId: string,
): Promise<unknown> {
  const { deps, orgId } = ctx;
  const deadline = Date.now() + tool.timeoutSeconds * 1000;
  const workflow = await rpcRequest(
    deps.nc,
    workflowRpc.getDefinition,
    { orgId, workflowId: tool.workflowId },
    { requestId: ctx.requestId },
  );
  const executionId = toolExecutionId(orgId, ctx.sessionId, ctx.turn, callId);
  let wake: (() => void) | undefined;
  const sub = deps.nc.subscribe('evt.execution.*', {
    callback: (_err, msg) => {
      try {
        const event = msg.json<{ orgId?: string; data?: { executionId?: string } }>();
        if (event.orgId === orgId && event.data?.executionId === executionId) wake?.();
      } catch {
        // not an event of ours
      }
    },
  });
  const get = () =>
    rpcRequest(deps.nc, executionRpc.get, { orgId, executionId }, { requestId: ctx.requestId });
  try {
    let execution: Execution = await rpcRequest(
      deps.nc,
      executionRpc.start,
      { orgId, executionId, workflow, input, trigger: { kind: 'manual' } },
      { requestId: ctx.requestId },
    );
    let pollMs = 250;
    while (!terminal.has(execution.status)) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `workflow ${workflow.name} did not finish within ${tool.timeoutSeconds} s (execution ${executionId} goes on)`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(pollMs, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      pollMs = Math.min(pollMs * 2, 2_000);
      execution = await get();
    }
    if (execution.status !== 'succeeded') {
      const why = execution.error ? `: ${execution.error.message}` : '';
      throw new Error(`workflow ${workflow.name} ${execution.status} (execution ${executionId})${why}`);
    }
    return { executionId, status: execution.status, output: execution.output ?? null };
  } finally {
    sub.unsubscribe();
  }
}
