import { z } from 'zod';
import { ChatCompletionsInput, ChatCompletionsOutput } from '@platform/contracts';
import { ValidationError } from '@platform/kit';
import { credentialsRejected, failureForStatus, ThirdPartyError } from './errors.ts';
import { retryAfterSeconds, type HttpResponse } from './outbound.ts';
import { HttpUrl, Secret } from './schemas.ts';
import { actionsFor, defineIntegration, type ActionContext } from './types.ts';

/**
 * OpenAI-compatible chat completions (OpenAI, and the many providers and local servers that speak
 * the same API): `POST {baseUrl}/chat/completions` with a bearer key, tools included. This is the
 * model provider of agents; streaming is served by openai-stream.ts over `svc.integration.chat-stream`.
 */
const Credentials = z.discriminatedUnion('authKind', [
  z.object({ authKind: z.literal('bearer'), apiKey: Secret }).strict(),
  z
    .object({ authKind: z.literal('none') })
    .strict()
    .describe('Local servers that need no key'),
]);
export type OpenAiCredentials = z.infer<typeof Credentials>;

const Settings = z
  .object({
    baseUrl: HttpUrl.optional().describe('API base, e.g. https://api.openai.com/v1 (default OPENAI_API_URL)'),
    defaultModel: z.string().min(1).max(200).optional().describe('Used when a request names no model'),
    organization: z.string().max(200).optional().describe('Sent as OpenAI-Organization'),
  })
  .strict();
export type OpenAiSettings = z.infer<typeof Settings>;

const env = {
  /** Base URL of OpenAI-compatible connections that set none (tests point it at a local fake). */
  OPENAI_API_URL: HttpUrl.default('https://api.openai.com/v1'),
};

export type OpenAiCtx = ActionContext<OpenAiCredentials, OpenAiSettings>;
const who = 'The model provider';

export function apiUrl(ctx: OpenAiCtx, path: string): string {
  return `${(ctx.settings.baseUrl ?? String(ctx.env.OPENAI_API_URL)).replace(/\/+$/, '')}${path}`;
}

export function authHeaders(ctx: OpenAiCtx): Record<string, string> {
  const headers: Record<string, string> = {};
  if (ctx.credentials.authKind === 'bearer') headers.authorization = `Bearer ${ctx.credentials.apiKey}`;
  if (ctx.settings.organization) headers['openai-organization'] = ctx.settings.organization;
  return headers;
}

/** OpenAI errors are `{error: {message, type, code}}`; a 429 for quota is not worth retrying. */
export function providerFailure(res: Pick<HttpResponse, 'status' | 'headers' | 'json' | 'text'>) {
  const error = ((res.json as { error?: unknown } | undefined)?.error ?? {}) as {
    message?: string;
    code?: string;
    type?: string;
  };
  const detail = (error.message ?? res.text).slice(0, 300) || undefined;
  if (error.code === 'insufficient_quota' || error.type === 'insufficient_quota') {
    return new ThirdPartyError(
      'forbidden',
      402,
      `${who} refused: no quota left on this account`,
      'credentials',
    );
  }
  if (res.status === 401 || res.status === 403) return credentialsRejected(who, error.code ?? detail);
  return failureForStatus(who, res.status, detail, retryAfterSeconds(res.headers));
}

/** The request body sent upstream: the caller's fields, the model resolved, streaming set by us. */
export function completionBody(ctx: OpenAiCtx, input: ChatCompletionsInput, stream: boolean) {
  const {
    stream: _s,
    stream_options: _o,
    ...rest
  } = input as ChatCompletionsInput & {
    stream?: unknown;
    stream_options?: unknown;
  };
  const model = input.model ?? ctx.settings.defaultModel;
  if (!model) {
    throw new ValidationError([
      { field: 'input.model', message: 'is required (the connection has no defaultModel)' },
    ]);
  }
  return stream
    ? { ...rest, model, stream: true, stream_options: { include_usage: true } }
    : { ...rest, model, stream: false };
}

const action = actionsFor<OpenAiCredentials, OpenAiSettings>();

export const openaiIntegration = defineIntegration({
  id: 'openai',
  name: 'OpenAI-compatible chat completions',
  description:
    'The model provider of agents: chat completions with tools on OpenAI or any OpenAI-compatible API.',
  who: 'The model provider',
  category: 'ai',
  authKinds: ['bearer', 'none'],
  credentials: Credentials,
  settings: Settings,
  env,
  authKindOf: (c) => c.authKind,
  async test(ctx) {
    const res = await ctx.http.send({
      method: 'GET',
      url: apiUrl(ctx, '/models'),
      headers: authHeaders(ctx),
    });
    if (res.status === 404)
      return { verified: false, message: 'the provider has no /models to check the key' };
    if (res.status < 200 || res.status >= 300) throw providerFailure(res);
    return { verified: true };
  },
  actions: {
    'chat.completions': action({
      description: 'One chat completion (non-streaming); tools and tool calls as in the OpenAI API.',
      input: ChatCompletionsInput,
      output: ChatCompletionsOutput,
      async run(ctx, input) {
        const res = await ctx.http.send({
          method: 'POST',
          url: apiUrl(ctx, '/chat/completions'),
          headers: authHeaders(ctx),
          json: completionBody(ctx, input, false),
        });
        if (res.status < 200 || res.status >= 300) throw providerFailure(res);
        return res.json as z.input<typeof ChatCompletionsOutput>;
      },
    }),
    'models.list': action({
      description: 'The models the provider offers.',
      input: z.object({}).strict(),
      output: z.object({ models: z.array(z.object({ id: z.string(), ownedBy: z.string().nullable() })) }),
      async run(ctx) {
        const res = await ctx.http.send({
          method: 'GET',
          url: apiUrl(ctx, '/models'),
          headers: authHeaders(ctx),
        });
        if (res.status < 200 || res.status >= 300) throw providerFailure(res);
        const data = ((res.json as { data?: unknown[] } | undefined)?.data ?? []) as Array<{
          id?: string;
          owned_by?: string;
        }>;
        return { models: data.map((m) => ({ id: String(m.id), ownedBy: m.owned_by ?? null })) };
      },
    }),
  },
});
