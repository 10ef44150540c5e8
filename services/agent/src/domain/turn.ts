import type { AgentConfig, ChatMessage, ToolCallRecord, Usage } from '@platform/contracts';
import type { Logger } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { localProvider } from '../providers/local.ts';
import { openAiProvider } from '../providers/openai.ts';
import { completeWithRetry } from '../providers/retry.ts';
import type { ModelProviderClient } from '../providers/types.ts';
import type { Handoff } from '../tools/handoff-tool.ts';
import { runTool, toolDefinitions, type ToolContext } from '../tools/toolbox.ts';

/** Receives a turn's progress as it happens (the streamed answer); every method is optional. */
export interface TurnSink {
  delta?(text: string): void;
  toolCall?(call: { id: string; name: string; arguments: string }): void;
  toolResult?(record: ToolCallRecord): void;
}

export interface TurnInput {
  orgId: string;
  sessionId: string;
  turn: number;
  agentName: string;
  /** The agent answering this turn (after a handoff: the target) and the session's channel and type. */
  session: ToolContext['session'];
  config: AgentConfig;
  /** Earlier turns (the model's view) and, for a new session, the greeting. */
  history: ChatMessage[];
  userMessage: string;
  requestId: string;
  log: Logger;
  sink: TurnSink;
}

export interface TurnOutput {
  reply: string;
  toolCalls: ToolCallRecord[];
  usage: Usage;
  /** What this turn adds to the model's view: the user message, assistant messages, tool results. */
  added: ChatMessage[];
  end?: { status: 'Completed' | 'Cancelled'; reason: string };
  /** The turn handed the session to another agent (the first handoff of the turn). */
  handoff?: Handoff;
}

export function providerFor(
  deps: AgentDeps,
  orgId: string,
  config: AgentConfig,
  agentName: string,
): ModelProviderClient {
  if (config.provider.kind === 'local') return localProvider(config.provider, agentName);
  return openAiProvider(deps.nc, {
    orgId,
    connectionId: config.provider.connectionId,
    timeoutMs: deps.config.PROVIDER_TIMEOUT_MS,
  });
}

/**
 * One turn: the model answers the user's message, calling tools for up to `maxToolRounds` rounds
 * (each round's tool results go back to it), then must answer in text. The reply is the text of every
 * round joined by a line break, exactly what a streaming client received as deltas.
 * A ProviderError (after retries) propagates: the caller fails the session.
 */
export async function runTurn(deps: AgentDeps, input: TurnInput): Promise<TurnOutput> {
  const { config, sink } = input;
  const provider = providerFor(deps, input.orgId, config, input.agentName);
  const toolCtx: ToolContext = {
    deps,
    orgId: input.orgId,
    sessionId: input.sessionId,
    turn: input.turn,
    log: input.log,
    requestId: input.requestId,
    session: input.session,
  };
  const definitions = config.tools.length > 0 ? await toolDefinitions(toolCtx, config.tools) : [];
  const system: ChatMessage[] = config.systemPrompt ? [{ role: 'system', content: config.systemPrompt }] : [];
  const added: ChatMessage[] = [{ role: 'user', content: input.userMessage }];
  const parts: string[] = [];
  const toolCalls: ToolCallRecord[] = [];
  const usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0, modelCalls: 0 };
  let end: TurnOutput['end'];
  let handoff: Handoff | undefined;

  for (let round = 0; ; round++) {
    const offerTools = round < config.maxToolRounds && definitions.length > 0;
    let roundText = '';
    const onDelta = sink.delta
      ? (text: string) => {
          // Rounds are separated by a line break in the reply; the stream says the same.
          if (roundText === '' && parts.length > 0) sink.delta!('\n');
          roundText += text;
          sink.delta!(text);
        }
      : undefined;
    const result = await completeWithRetry(
      provider,
      {
        messages: [...system, ...input.history, ...added],
        tools: offerTools ? definitions : undefined,
        model: config.model,
        temperature: config.temperature,
        maxTokens: config.maxTokens,
        requestId: `${input.sessionId}:${input.turn}:${round}`,
      },
      {
        onDelta,
        policy: {
          maxAttempts: deps.config.PROVIDER_MAX_ATTEMPTS,
          backoffMs: deps.config.PROVIDER_BACKOFF_MS,
        },
        log: input.log,
      },
    );
    usage.modelCalls += result.attempts;
    usage.promptTokens += result.usage.promptTokens;
    usage.completionTokens += result.usage.completionTokens;
    if (result.content) parts.push(result.content);
    const calls = offerTools ? result.toolCalls : [];
    if (calls.length === 0) {
      added.push({ role: 'assistant', content: result.content });
      break;
    }
    added.push({
      role: 'assistant',
      content: result.content || null,
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      })),
    });
    for (const call of calls) {
      sink.toolCall?.(call);
      const outcome = await runTool(toolCtx, config.tools, call);
      toolCalls.push(outcome.record);
      sink.toolResult?.(outcome.record);
      added.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
      end ??= outcome.end;
      handoff ??= outcome.handoff;
      toolCtx.handedOff = handoff !== undefined;
    }
  }
  usage.totalTokens = usage.promptTokens + usage.completionTokens;
  return { reply: parts.join('\n'), toolCalls, usage, added, end, handoff };
}
