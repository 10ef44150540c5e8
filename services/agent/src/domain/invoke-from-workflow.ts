import type { z } from 'zod';
import { SessionId, type AgentStepInvokeRequest, type AgentStepInvokeReply } from '@platform/contracts';
import { ValidationError, type RpcContext } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { findAgent } from './agents.ts';
import { invoke } from './invoke.ts';
import { configOf } from './views.ts';

/** A reply that is a JSON object or array is also given as structured output. */
function structured(reply: string): unknown {
  const text = reply.trim();
  if (!/^[[{]/.test(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * svc.agent.invoke, for the `agent` step of workflows: one turn, as a developer of the organization
 * would invoke it. A new session goes on the agent's first enabled channel with its first session
 * type, and records the execution, workflow and step that started it in its metadata.
 */
export async function invokeFromWorkflow(
  deps: AgentDeps,
  req: z.infer<typeof AgentStepInvokeRequest>,
  ctx: RpcContext,
): Promise<z.input<typeof AgentStepInvokeReply>> {
  const identity = { orgId: req.orgId, role: 'developer' as const, plan: 'internal' };
  let start = {};
  if (!req.sessionId) {
    const config = configOf(await findAgent(deps, req.orgId, req.agentId));
    start = {
      channel: config.channels[0],
      sessionType: config.sessionTypes[0],
      metadata: { source: 'workflow', ...req.source },
    };
  }
  const sessionId = req.sessionId ? SessionId.safeParse(req.sessionId) : undefined;
  if (sessionId && !sessionId.success) {
    throw new ValidationError([{ field: 'sessionId', message: 'is not a session id (UUID v4)' }]);
  }
  const result = await invoke(
    deps,
    identity,
    req.agentId,
    { message: req.message, sessionId: sessionId?.data, stream: false, ...start },
    { requestId: ctx.requestId, log: ctx.log },
  );
  const output = structured(result.reply);
  return { sessionId: result.sessionId, reply: result.reply, ...(output === undefined ? {} : { output }) };
}
