import type { ChatMessage, Identity, InvokeBody, InvokeResult, SessionMessage } from '@platform/contracts';
import { AppError, ConflictError, ValidationError, type Logger } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { ProviderError } from '../providers/types.ts';
import { findAgent, versionConfig } from './agents.ts';
import { appendTurn, contextOf } from './context-store.ts';
import { acquireTurn, openConversation, type TurnLease } from './conversations.ts';
import { failTurn, finishTurn, releaseTurn } from './finish-turn.ts';
import { answeringAgent } from './handoff.ts';
import { requireWriter } from './roles.ts';
import { runTurn, type TurnSink } from './turn.ts';
import { configOf } from './views.ts';

/** A turn's progress for a streaming client: the session first, then messages as they are recorded. */
export interface InvokeSink extends TurnSink {
  session?(info: { sessionId: string; agentId: string; agentVersion: number; turn: number }): void;
  message?(message: SessionMessage): void;
  /** Whether the streaming client went away (asked when the turn is recorded). */
  clientGone?(): boolean;
}

/** The model provider failed for good; the session is Failed. Answered as 502 naming the session. */
export class ProviderFailedError extends AppError {
  constructor(
    readonly sessionId: string,
    message: string,
  ) {
    super(502, 'unavailable', 'Model provider failed', `${message} (session ${sessionId} is Failed)`, {
      type: 'model-provider-failed',
    });
  }
}

/** What a new session needs from the agent's current version, checked before anything is written. */
async function startLease(
  deps: AgentDeps,
  identity: Identity,
  agentId: string,
  body: InvokeBody,
  requestId: string,
) {
  const agent = await findAgent(deps, identity.orgId, agentId);
  if (agent.status === 'archived')
    throw new ConflictError('This agent is archived and accepts no new sessions');
  const config = configOf(agent);
  const sessionType = body.sessionType ?? 'chat';
  const errors = [];
  if (!body.channel)
    errors.push({ field: 'channel', message: 'is required to start a session', location: 'body' as const });
  else if (!config.channels.includes(body.channel)) {
    errors.push({
      field: 'channel',
      message: `is not enabled for this agent (${config.channels.join(', ')})`,
      location: 'body' as const,
    });
  }
  if (!config.sessionTypes.includes(sessionType)) {
    errors.push({
      field: 'sessionType',
      message: `is not enabled for this agent (${config.sessionTypes.join(', ')})`,
      location: 'body' as const,
    });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const lease = await openConversation(deps, {
    orgId: identity.orgId,
    agentId,
    agentName: config.name,
    agentVersion: agent.version,
    channel: body.channel!,
    sessionType,
    metadata: body.metadata ?? {},
    greeting: config.greeting,
    idleTimeoutSeconds: config.idleTimeoutSeconds,
    userMessage: body.message,
    requestId,
  });
  return { lease, config };
}

/**
 * POST /agents/{id}/invoke: one turn. Without sessionId a session starts (on the agent's current
 * version); with one, the session continues on the version it started with, or, after a handoff, on
 * the target agent's version pinned then (addressed to the starting or to the answering agent). The
 * user's message is in the session before the model runs; the reply (and an end, if the turn ended
 * the session) after.
 */
export async function invoke(
  deps: AgentDeps,
  identity: Identity,
  agentId: string,
  body: InvokeBody,
  ctx: { requestId: string; log: Logger; sink?: InvokeSink },
): Promise<InvokeResult> {
  requireWriter(identity);
  const { orgId } = identity;
  const sink = ctx.sink ?? {};
  let lease: TurnLease;
  let config;
  if (!body.sessionId) {
    ({ lease, config } = await startLease(deps, identity, agentId, body, ctx.requestId));
  } else {
    lease = await acquireTurn(deps, {
      orgId,
      agentId,
      sessionId: body.sessionId,
      userMessage: body.message,
      channel: body.channel,
      sessionType: body.sessionType,
      metadata: body.metadata,
      requestId: ctx.requestId,
      log: ctx.log,
    });
    try {
      const current = answeringAgent(lease.conv);
      config = await versionConfig(deps, orgId, current.agentId, current.agentVersion);
    } catch (err) {
      await releaseTurn(deps, lease);
      throw err;
    }
  }
  const { conv } = lease;
  const sessionId = conv._id;
  const answering = answeringAgent(conv);
  const log = ctx.log.child({ sessionId, turn: lease.turn, agentId: answering.agentId });
  sink.session?.({
    sessionId,
    agentId: answering.agentId,
    agentVersion: answering.agentVersion,
    turn: lease.turn,
  });
  for (const m of lease.messages) sink.message?.(m);

  const greeting: ChatMessage[] =
    lease.isNew && config.greeting ? [{ role: 'assistant', content: config.greeting }] : [];
  let output;
  try {
    const history = lease.isNew ? greeting : contextOf(conv.context);
    output = await runTurn(deps, {
      orgId,
      sessionId,
      turn: lease.turn,
      agentName: answering.agentName,
      session: {
        agentId: answering.agentId,
        agentVersion: answering.agentVersion,
        channel: conv.channel,
        sessionType: conv.sessionType,
      },
      config,
      history,
      userMessage: body.message,
      requestId: ctx.requestId,
      log,
      sink,
    });
  } catch (err) {
    if (err instanceof ProviderError) {
      log.warn({ err: err.message, kind: err.kind }, 'model provider failed; the session is Failed');
      await failTurn(
        deps,
        lease,
        { message: err.message, kind: err.kind, provider: config.provider.kind },
        ctx.requestId,
        { clientGone: sink.clientGone?.() },
      );
      throw new ProviderFailedError(sessionId, err.message);
    }
    await releaseTurn(deps, lease);
    throw err;
  }
  const context = appendTurn(conv.context, [...greeting, ...output.added], {
    maxMessages: deps.config.CONTEXT_MAX_MESSAGES,
    maxBytes: deps.config.CONTEXT_MAX_BYTES,
  });
  const finished = await finishTurn(deps, lease, output, { ...config, context }, ctx.requestId, {
    clientGone: sink.clientGone?.(),
  });
  sink.message?.(finished.agentMessage);
  return {
    sessionId,
    agentId: output.handoff?.toAgentId ?? answering.agentId,
    agentVersion: output.handoff?.toVersion ?? answering.agentVersion,
    turn: lease.turn,
    reply: output.reply,
    messages: [...lease.messages, finished.agentMessage],
    toolCalls: output.toolCalls,
    usage: output.usage,
    sessionStatus: finished.status,
    endReason: finished.endReason,
  };
}
