import { integrationRpc, type AgentTool } from '@platform/contracts';
import { rpcRequest } from '@platform/kit';
import type { ToolContext } from './toolbox.ts';

type IntegrationActionTool = Extract<AgentTool, { type: 'integration_action' }>;

/** Calls an action of a connection through the integration service; its output goes to the model. */
export async function runIntegrationTool(
  ctx: ToolContext,
  tool: IntegrationActionTool,
  input: Record<string, unknown>,
  callId: string,
): Promise<unknown> {
  const timeoutMs = tool.timeoutSeconds * 1000;
  const reply = await rpcRequest(
    ctx.deps.nc,
    integrationRpc.runAction,
    {
      orgId: ctx.orgId,
      connectionId: tool.connectionId,
      action: tool.action,
      input,
      // The same call retried is the same logical call (the third party's idempotency key, when it has one).
      requestId: `${ctx.sessionId}:${ctx.turn}:${callId}`,
      timeoutMs,
    },
    { timeoutMs: timeoutMs + 2_000, requestId: ctx.requestId },
  );
  return reply.output;
}
