import type { ServerResponse } from 'node:http';
import { basicAuthOf, type FakeHandler, type FakeReply } from './server.ts';

/** Fakes of an OpenAI-compatible provider, an OAuth token endpoint with a REST API, and a webhook receiver. */
export const OPENAI_KEY = 'sk-test-valid-key';
export const OAUTH_CLIENT = { id: 'client-1', secret: 'client-secret-1' };

const openAiError = (status: number, message: string, code: string, type = 'invalid_request_error') => ({
  status,
  json: { error: { message, type, param: null, code } },
});

function sse(res: ServerResponse, events: unknown[]) {
  return (async () => {
    for (const e of events) {
      res.write(`data: ${JSON.stringify(e)}\n\n`);
      await new Promise((r) => setTimeout(r, 5));
    }
    res.write('data: [DONE]\n\n');
  })();
}

/** Mounted at /openai (base URL /openai/v1). */
export const openAiFake: FakeHandler = (req) => {
  if (req.headers.authorization !== `Bearer ${OPENAI_KEY}`) {
    return openAiError(
      401,
      'Incorrect API key provided: sk-te****. You can find your API key at …',
      'invalid_api_key',
    );
  }
  if (req.method === 'GET' && req.path === '/v1/models') {
    return { json: { object: 'list', data: [{ id: 'gpt-test', object: 'model', owned_by: 'fake' }] } };
  }
  if (req.method !== 'POST' || req.path !== '/v1/chat/completions')
    return openAiError(404, 'Not found', 'not_found');
  const body = req.json ?? {};
  if (typeof body.model !== 'string')
    return openAiError(400, 'you must provide a model parameter', 'missing_model');
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return openAiError(400, "'messages' must contain at least one message", 'invalid_messages');
  }
  if (body.model === 'overloaded')
    return openAiError(503, 'The engine is currently overloaded', 'overloaded', 'server_error');
  if (body.model === 'quota') {
    return openAiError(429, 'You exceeded your current quota', 'insufficient_quota', 'insufficient_quota');
  }
  if (body.model === 'busy')
    return {
      ...openAiError(429, 'Rate limit reached', 'rate_limit_exceeded'),
      headers: { 'retry-after': '2' },
    };
  if (body.model === 'slow') return { delayMs: 3_000, json: { choices: [] } };
  if (body.model === 'unknown-model') return openAiError(404, 'The model does not exist', 'model_not_found');
  const last = body.messages[body.messages.length - 1];
  const wantsTool = Array.isArray(body.tools) && body.tools.length > 0 && last.role === 'user';
  const content = wantsTool ? null : `echo: ${typeof last.content === 'string' ? last.content : '?'}`;
  const toolCalls = wantsTool
    ? [
        {
          id: 'call_1',
          type: 'function',
          function: { name: body.tools[0].function.name, arguments: '{"city":"Paris"}' },
        },
      ]
    : undefined;
  if (body.stream === true) {
    const base = {
      id: 'chatcmpl-s1',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: body.model,
    };
    const chunks: unknown[] = [
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    ];
    if (toolCalls) {
      chunks.push({
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index: 0,
                  id: 'call_1',
                  type: 'function',
                  function: { name: toolCalls[0]!.function.name, arguments: '{"city":' },
                },
              ],
            },
            finish_reason: null,
          },
        ],
      });
      chunks.push({
        ...base,
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
            finish_reason: null,
          },
        ],
      });
      chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
    } else {
      for (const piece of content!.match(/.{1,4}/g)!) {
        chunks.push({ ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      }
      chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    }
    if (body.stream_options?.include_usage) {
      chunks.push({
        ...base,
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
      });
    }
    return { stream: (res) => sse(res, chunks) };
  }
  return {
    json: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
          finish_reason: toolCalls ? 'tool_calls' : 'stop',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
    },
  };
};

let tokenCounter = 0;
/** Tokens numbered up to this one were revoked by the authorization server (GET /rest/oauth/revoke-all). */
let revokedUpTo = 0;
/** Mounted at /rest: an OAuth 2 token endpoint and an API that echoes what it received. */
export const restFake: FakeHandler = (req): FakeReply | undefined => {
  if (req.path === '/oauth/token') {
    const auth = basicAuthOf(req);
    if (req.method !== 'POST' || req.form.get('grant_type') !== 'client_credentials') {
      return { status: 400, json: { error: 'unsupported_grant_type' } };
    }
    if (
      !auth ||
      decodeURIComponent(auth.user) !== OAUTH_CLIENT.id ||
      decodeURIComponent(auth.pass) !== OAUTH_CLIENT.secret
    ) {
      return { status: 401, json: { error: 'invalid_client' } };
    }
    return {
      json: {
        access_token: `tok-${++tokenCounter}`,
        token_type: 'Bearer',
        expires_in: 3600,
        scope: req.form.get('scope'),
      },
    };
  }
  if (req.path === '/oauth/revoke-all') {
    revokedUpTo = tokenCounter;
    return { json: { revokedUpTo } };
  }
  if (req.path === '/api/protected') {
    const token = /^Bearer tok-(\d+)$/.exec(String(req.headers.authorization));
    return token && Number(token[1]) > revokedUpTo
      ? { json: { ok: true, token: Number(token[1]) } }
      : { status: 401, json: { message: 'token required' } };
  }
  const status = /^\/api\/status\/(\d{3})$/.exec(req.path);
  if (status)
    return {
      status: Number(status[1]),
      json: { message: `status ${status[1]}` },
      headers: { 'retry-after': '3' },
    };
  if (req.path === '/api/slow') return { delayMs: 3_000, json: { late: true } };
  if (req.path === '/api/big') return { json: { blob: 'x'.repeat(1_500_000) } };
  if (req.path === '/api/redirect')
    return { status: 302, headers: { location: 'http://example.com/' }, text: '' };
  if (req.path.startsWith('/api/')) {
    return {
      json: {
        method: req.method,
        path: req.path,
        query: Object.fromEntries(req.query),
        authorization: req.headers.authorization ?? null,
        apiKey: req.headers['x-api-key'] ?? null,
        custom: req.headers['x-custom'] ?? null,
        contentType: req.headers['content-type'] ?? null,
        body: req.json ?? (req.raw || null),
      },
    };
  }
  return undefined;
};

/** Mounted at /hook: a receiver that records deliveries; /hook/fail answers 500, /hook/gone 410. */
export const webhookReceiverFake: FakeHandler = (req) => {
  if (req.path === '/fail') return { status: 500, text: 'oops' };
  if (req.path === '/gone') return { status: 410, text: 'gone' };
  return { status: 202, json: { received: true } };
};
