import {
  ChatCompletionChunk,
  type ChatCompletionsInput,
  type ChatCompletionsOutput,
} from '@platform/contracts';
import { callRejected, ThirdPartyError, upstreamFailed } from './errors.ts';
import { apiUrl, authHeaders, completionBody, providerFailure, type OpenAiCtx } from './openai.ts';
import { streamFailure, streamingFetch } from './stream-fetch.ts';

/**
 * Streamed chat completion: `stream: true` upstream, server-sent events parsed as they arrive, each
 * `chat.completion.chunk` handed to `onChunk`, and the whole completion assembled from the deltas
 * (content concatenated, tool calls joined by index) so the caller gets the same shape as without
 * streaming.
 */
const who = 'The model provider';

interface ToolCallDelta {
  index?: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

class Assembler {
  id: string | undefined;
  model: string | undefined;
  created: number | undefined;
  usage: unknown;
  private choices = new Map<
    number,
    {
      role: string;
      content: string;
      toolCalls: Map<number, { id: string; name: string; arguments: string }>;
      finish: string | null;
    }
  >();

  add(chunk: ChatCompletionChunk) {
    this.id ??= chunk.id;
    this.model ??= chunk.model;
    this.created ??= typeof chunk.created === 'number' ? chunk.created : undefined;
    if (chunk.usage) this.usage = chunk.usage;
    for (const choice of chunk.choices) {
      let state = this.choices.get(choice.index);
      if (!state) {
        state = { role: 'assistant', content: '', toolCalls: new Map(), finish: null };
        this.choices.set(choice.index, state);
      }
      const delta = (choice.delta ?? {}) as {
        role?: string;
        content?: string | null;
        tool_calls?: ToolCallDelta[];
      };
      if (delta.role) state.role = delta.role;
      if (typeof delta.content === 'string') state.content += delta.content;
      for (const call of delta.tool_calls ?? []) {
        const index = call.index ?? 0;
        const current = state.toolCalls.get(index) ?? { id: '', name: '', arguments: '' };
        if (call.id) current.id = call.id;
        if (call.function?.name) current.name += call.function.name;
        if (call.function?.arguments) current.arguments += call.function.arguments;
        state.toolCalls.set(index, current);
      }
      if (choice.finish_reason) state.finish = choice.finish_reason;
    }
  }

  result(): ChatCompletionsOutput {
    const choices = [...this.choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, s]) => {
        const toolCalls = [...s.toolCalls.entries()]
          .sort(([a], [b]) => a - b)
          .map(([, c]) => ({
            id: c.id,
            type: 'function' as const,
            function: { name: c.name, arguments: c.arguments },
          }));
        return {
          index,
          message: {
            role: s.role as 'assistant',
            content: s.content || (toolCalls.length ? null : ''),
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: s.finish,
        };
      });
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices,
      ...(this.usage ? { usage: this.usage as ChatCompletionsOutput['usage'] } : {}),
    };
  }
}

async function readLimited(body: AsyncIterable<Uint8Array> | null, limit: number): Promise<string> {
  if (!body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk));
    size += chunk.length;
    if (size > limit) break;
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, limit);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export async function streamChatCompletion(
  ctx: OpenAiCtx,
  input: ChatCompletionsInput,
  onChunk: (chunk: ChatCompletionChunk) => void,
  options: { maxBytes: number; userAgent: string },
): Promise<ChatCompletionsOutput> {
  const remaining = ctx.deadline - Date.now();
  const url = apiUrl(ctx, '/chat/completions');
  const res = await streamingFetch(
    who,
    url,
    {
      method: 'POST',
      headers: {
        ...authHeaders(ctx),
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'user-agent': options.userAgent,
      },
      body: JSON.stringify(completionBody(ctx, input, true)),
      signal: AbortSignal.timeout(Math.max(1, remaining)),
    },
    { allowPrivateNetwork: ctx.allowPrivateNetwork },
  );
  const host = new URL(url).host;
  try {
    const headers = Object.fromEntries(res.headers.entries());
    if (res.status < 200 || res.status >= 300) {
      const text = await readLimited(res.body, 65_536);
      throw providerFailure({ status: res.status, headers, text, json: parseJson(text) });
    }
    // A provider that ignores `stream` answers one JSON completion: take it as it is.
    if ((headers['content-type'] ?? '').includes('application/json')) {
      const json = parseJson(await readLimited(res.body, options.maxBytes));
      if (!json) throw callRejected(who, res.status, 'the answer is not JSON');
      return json as ChatCompletionsOutput;
    }
    return await readEvents(res.body, onChunk, options.maxBytes);
  } catch (err) {
    if (err instanceof ThirdPartyError) throw err;
    throw streamFailure(who, err, host);
  }
}

async function readEvents(
  body: AsyncIterable<Uint8Array> | null,
  onChunk: (chunk: ChatCompletionChunk) => void,
  maxBytes: number,
): Promise<ChatCompletionsOutput> {
  const assembler = new Assembler();
  if (!body) return assembler.result();
  const decoder = new TextDecoder();
  let buffer = '';
  let size = 0;
  for await (const bytes of body) {
    size += bytes.length;
    if (size > maxBytes) throw callRejected(who, undefined, 'the streamed answer is too large');
    buffer += decoder.decode(bytes, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (!data) continue;
      if (data === '[DONE]') return assembler.result();
      const json = parseJson(data) as { error?: { message?: string } } | undefined;
      if (json?.error) throw upstreamFailed(who, undefined, json.error.message?.slice(0, 300));
      const chunk = ChatCompletionChunk.safeParse(json);
      if (!chunk.success) continue;
      assembler.add(chunk.data);
      onChunk(chunk.data);
    }
  }
  return assembler.result();
}
