import { agentStepRpc } from '@platform/contracts';
import { rpcRequest } from '@platform/kit';
import { renderText } from '../engine/expressions.ts';
import { StepFailure } from '../engine/step-failure.ts';
import { failureOfRemote, untilAborted } from './guards.ts';
import type { StepOf, StepResult, StepRunContext } from './types.ts';

/** One turn with an agent over `svc.agent.invoke`; nobody answering is `unavailable` (retried). */
export async function runAgent(step: StepOf<'agent'>, ctx: StepRunContext): Promise<StepResult> {
  const message = await renderText(step.settings.message, ctx.data);
  if (!message.trim())
    throw new StepFailure('invalid_settings', 'settings.message rendered to an empty text');
  const sessionId = step.settings.sessionId ? await renderText(step.settings.sessionId, ctx.data) : undefined;
  const reply = await untilAborted(
    rpcRequest(
      ctx.deps.nc,
      agentStepRpc.invoke,
      {
        orgId: ctx.execution.orgId,
        agentId: step.settings.agentId,
        message: message.slice(0, 16_000),
        ...(sessionId ? { sessionId } : {}),
        source: { executionId: ctx.execution.id, workflowId: ctx.execution.workflowId, stepId: step.id },
      },
      { timeoutMs: ctx.timeoutMs },
    ).catch((err: unknown) => {
      throw failureOfRemote(err, 'The agent service');
    }),
    ctx.signal,
  );
  ctx.log('info', `agent ${step.settings.agentId} replied (session ${reply.sessionId})`);
  return { output: reply };
}
