import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for an OpenAI-compatible API, speaking the real protocol: `POST /v1/chat/completions`
 * (JSON, or server-sent `chat.completion.chunk` events ending with `data: [DONE]` when `stream: true`,
 * tool calls streamed by index with their arguments in pieces, a usage chunk when asked) and
 * `GET /v1/models`. Its "model" is a script: the test decides what it answers to a conversation.
 * Failures can be queued (`failNext`) to exercise retries.
 */
export const FAKE_KEY = 'sk-test-fake-openai-key';

export interface ChatRequestBody {
  model: string;
  messages: Array<{ role: string; content?: string | null; tool_calls?: any[]; tool_call_id?: string }>;
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters?: any } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  max_tokens?: number;
}

export type ModelAnswer =
  | { content: string; toolCalls?: undefined }
  | { content?: string; toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> }
  | { status: number; error: string; headers?: Record<string, string> };

export class FakeOpenAi {
  readonly requests: Array<{ path: string; headers: IncomingMessage['headers']; body: ChatRequestBody }> = [];
  private failures: Array<{ status: number; error: string; headers?: Record<string, string> }> = [];
  private server!: Server;
  private delays: number[] = [];
  private calls = 0;
  url = '';
  /** Pause between two streamed chunks. */
  chunkDelayMs = 2;

  constructor(public brain: (body: ChatRequestBody) => ModelAnswer) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close() {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next `count` completions fail with `status` (e.g. 429, 503). */
  failNext(count: number, status: number, headers?: Record<string, string>) {
    for (let i = 0; i < count; i++) this.failures.push({ status, error: `fake failure ${status}`, headers });
  }

  /** The next completion waits `ms` before answering (a slow or hung provider). */
  delayNext(ms: number) {
    this.delays.push(ms);
  }

  completions() {
    return this.requests.filter((r) => r.path === '/v1/chat/completions');
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = (text ? JSON.parse(text) : {}) as ChatRequestBody;
    const path = (req.url ?? '').split('?')[0]!;
    this.requests.push({ path, headers: req.headers, body });
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(value));
    };
    if (req.headers.authorization !== `Bearer ${FAKE_KEY}`) {
      return json(401, {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return json(200, { object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'tests' }] });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions')
      return json(404, { error: { message: 'no route' } });
    const delay = this.delays.shift();
    if (delay) await new Promise((r) => setTimeout(r, delay));
    if (res.destroyed) return;
    const failure = this.failures.shift();
    if (failure)
      return json(
        failure.status,
        { error: { message: failure.error, type: 'server_error' } },
        failure.headers,
      );
    const answer = this.brain(body);
    if ('status' in answer)
      return json(answer.status, { error: { message: answer.error, type: 'server_error' } }, answer.headers);
    this.calls++;
    const id = `chatcmpl-${this.calls}`;
    const toolCalls = (answer.toolCalls ?? []).map((c, i) => ({
      id: `call_${this.calls}_${i}`,
      type: 'function' as const,
      function: { name: c.name, arguments: JSON.stringify(c.arguments) },
    }));
    const content = answer.content ?? '';
    const usage = {
      prompt_tokens: 10 * body.messages.length,
      completion_tokens: Math.max(1, content.length),
      total_tokens: 0,
    };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const finish = toolCalls.length ? 'tool_calls' : 'stop';
    if (!body.stream) {
      return json(200, {
        id,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: toolCalls.length && !content ? null : content,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finish,
          },
        ],
        usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (delta: object, finishReason: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`,
      );
    send({ role: 'assistant', content: '' });
    for (const piece of content.match(/\S+\s*/g) ?? []) {
      if (res.destroyed) return;
      send({ content: piece });
      await new Promise((r) => setTimeout(r, this.chunkDelayMs));
    }
    toolCalls.forEach((call, index) => {
      send({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
        ],
      });
      const args = call.function.arguments;
      const half = Math.ceil(args.length / 2);
      send({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] });
      send({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] });
    });
    send({}, finish);
    if (body.stream_options?.include_usage) {
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: body.model, choices: [], usage })}\n\n`,
      );
    }
    res.end('data: [DONE]\n\n');
  }
}
