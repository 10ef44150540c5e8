import { createInbox, type NatsConnection } from '@nats-io/transport-node';
import {
  ChatStreamMessage,
  integrationRpc,
  type ChatCompletionChunk,
  type ChatCompletionsInput,
  type ChatCompletionsOutput,
} from '@platform/contracts';
import { AppError, rpcRequest } from '@platform/kit';
import {
  ProviderError,
  type CallOptions,
  type ModelProviderClient,
  type ModelRequest,
  type ModelResult,
} from './types.ts';

/**
 * OpenAI-compatible chat completions through the integration service, which holds the connection's
 * base URL and key: `svc.integration.run-action` (`chat.completions`) for a whole answer, and
 * `svc.integration.chat-stream` for a streamed one (chunks arrive on an inbox of ours as they come).
 */
const who = 'The model provider';

/** The integration service's typed errors → provider errors; 429/5xx/network/timeouts are retryable. */
function toProviderError(err: unknown): ProviderError {
  if (err instanceof AppError) {
    if (err.kind === 'timeout') return new ProviderError(`${who} timed out: ${err.message}`, true, 'timeout');
    if (err.kind === 'unavailable')
      return new ProviderError(`${who} is unavailable: ${err.message}`, true, 'unavailable');
    return new ProviderError(`${who} refused the request: ${err.message}`, false, 'rejected');
  }
  return new ProviderError(`${who} failed: ${(err as Error).message}`, true, 'unavailable');
}

function resultOf(output: ChatCompletionsOutput): ModelResult {
  const message = output.choices[0]?.message;
  const content = typeof message?.content === 'string' ? message.content : '';
  return {
    content,
    toolCalls: (message?.tool_calls ?? []).map((c) => ({
      id: c.id,
      name: c.function.name,
      arguments: c.function.arguments,
    })),
    usage: {
      promptTokens: output.usage?.prompt_tokens ?? 0,
      completionTokens: output.usage?.completion_tokens ?? 0,
    },
  };
}

function inputOf(request: ModelRequest): ChatCompletionsInput {
  return {
    ...(request.model ? { model: request.model } : {}),
    messages: request.messages,
    ...(request.tools?.length ? { tools: request.tools, tool_choice: 'auto' as const } : {}),
    temperature: request.temperature,
    max_tokens: request.maxTokens,
  };
}

export function openAiProvider(
  nc: NatsConnection,
  options: { orgId: string; connectionId: string; timeoutMs: number },
): ModelProviderClient {
  const rpcOptions = (requestId: string) => ({ timeoutMs: options.timeoutMs + 2_000, requestId });
  const base = { orgId: options.orgId, connectionId: options.connectionId, timeoutMs: options.timeoutMs };

  async function whole(request: ModelRequest): Promise<ModelResult> {
    try {
      const reply = await rpcRequest(
        nc,
        integrationRpc.runAction,
        { ...base, action: 'chat.completions', input: inputOf(request), requestId: request.requestId },
        rpcOptions(request.requestId),
      );
      return resultOf(reply.output as ChatCompletionsOutput);
    } catch (err) {
      throw toProviderError(err);
    }
  }

  async function streamed(request: ModelRequest, onDelta: (text: string) => void): Promise<ModelResult> {
    const inbox = createInbox();
    // Chunks are re-ordered by `seq`, in case they are ever delivered out of order.
    let next = 0;
    const early = new Map<number, ChatCompletionChunk>();
    const emit = (chunk: ChatCompletionChunk) => {
      const delta = chunk.choices[0]?.delta as { content?: unknown } | undefined;
      if (typeof delta?.content === 'string' && delta.content) onDelta(delta.content);
    };
    const sub = nc.subscribe(inbox, {
      callback: (err, msg) => {
        if (err) return;
        const parsed = ChatStreamMessage.safeParse(msg.json());
        if (!parsed.success) return;
        early.set(parsed.data.seq, parsed.data.chunk);
        while (early.has(next)) {
          emit(early.get(next)!);
          early.delete(next++);
        }
      },
    });
    try {
      await nc.flush();
      const reply = await rpcRequest(
        nc,
        integrationRpc.chatStream,
        { ...base, input: inputOf(request), deliverTo: inbox, requestId: request.requestId },
        rpcOptions(request.requestId),
      );
      return resultOf(reply.output as ChatCompletionsOutput);
    } catch (err) {
      throw toProviderError(err);
    } finally {
      sub.unsubscribe();
    }
  }

  return {
    kind: 'openai',
    complete(request: ModelRequest, callOptions: CallOptions = {}) {
      return callOptions.onDelta ? streamed(request, callOptions.onDelta) : whole(request);
    },
  };
}
