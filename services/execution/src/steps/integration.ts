import { integrationRpc } from '@platform/contracts';
import { rpcRequest } from '@platform/kit';
import { renderValue } from '../engine/expressions.ts';
import { failureOfRemote, untilAborted } from './guards.ts';
import type { StepOf, StepResult, StepRunContext } from './types.ts';

/** An action of a connection, run by the integration service (`svc.integration.run-action`). */
export async function runIntegration(step: StepOf<'integration'>, ctx: StepRunContext): Promise<StepResult> {
  const input = step.settings.input === undefined ? {} : await renderValue(step.settings.input, ctx.data);
  const timeoutMs = Math.min(ctx.timeoutMs, 300_000);
  const reply = await untilAborted(
    rpcRequest(
      ctx.deps.nc,
      integrationRpc.runAction,
      {
        orgId: ctx.execution.orgId,
        connectionId: step.settings.connectionId,
        action: step.settings.action,
        input,
        requestId: `${ctx.execution.id}:${step.id}:${ctx.attempt}`,
        timeoutMs: Math.max(100, timeoutMs),
      },
      { timeoutMs: timeoutMs + 1_000 },
    ).catch((err: unknown) => {
      throw failureOfRemote(err, 'The integration service');
    }),
    ctx.signal,
  );
  ctx.log('info', `${reply.integrationId} ${reply.action} done in ${Math.round(reply.durationMs)} ms`);
  return { output: reply.output ?? null };
}
