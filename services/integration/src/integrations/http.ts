import { z } from 'zod';
import { ValidationError } from '@platform/kit';
import { clientCredentialsToken, forgetToken } from './oauth2.ts';
import type { HttpResponse } from './outbound.ts';
import { HeaderMap, HttpUrl, lowerKeys, Secret } from './schemas.ts';
import { actionsFor, defineIntegration, type ActionContext } from './types.ts';

/** Generic HTTP: any REST API under a base URL, with the auth kind the connection chooses. */
const Credentials = z.discriminatedUnion('authKind', [
  z.object({ authKind: z.literal('none') }).strict(),
  z
    .object({
      authKind: z.literal('api_key'),
      apiKey: Secret,
      in: z.enum(['header', 'query']).default('header'),
      name: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,100}$/)
        .default('X-API-Key')
        .describe('Header or query parameter that carries the key'),
    })
    .strict(),
  z.object({ authKind: z.literal('basic'), username: z.string().min(1).max(512), password: Secret }).strict(),
  z.object({ authKind: z.literal('bearer'), token: Secret }).strict(),
  z
    .object({
      authKind: z.literal('oauth2_client_credentials'),
      tokenUrl: HttpUrl,
      clientId: z.string().min(1).max(512),
      clientSecret: Secret,
      scope: z.string().max(1000).optional(),
      audience: z.string().max(1000).optional(),
    })
    .strict(),
]);
type Credentials = z.infer<typeof Credentials>;

const Settings = z
  .object({
    baseUrl: HttpUrl.describe('Every request path is appended to this URL'),
    headers: HeaderMap.optional().describe('Headers sent with every request (not secret)'),
    testPath: z
      .string()
      .startsWith('/')
      .max(2000)
      .optional()
      .describe('A GET on this path must answer 2xx for the credentials to count as verified'),
  })
  .strict();
type Settings = z.infer<typeof Settings>;

type Ctx = ActionContext<Credentials, Settings>;
const action = actionsFor<Credentials, Settings>();

/** `baseUrl` + `path`; the result must stay on the base URL's origin (credentials go nowhere else). */
function resolveUrl(settings: Settings, path: string, query?: Record<string, unknown>): URL {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    throw new ValidationError([{ field: 'input.path', message: 'must be a path relative to the base URL' }]);
  }
  const base = new URL(settings.baseUrl);
  const url = new URL(`${settings.baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  if (url.origin !== base.origin) {
    throw new ValidationError([{ field: 'input.path', message: 'must stay on the base URL' }]);
  }
  for (const [key, value] of Object.entries(query ?? {})) url.searchParams.append(key, String(value));
  return url;
}

async function authorize(ctx: Ctx, url: URL, headers: Record<string, string>) {
  const c = ctx.credentials;
  switch (c.authKind) {
    case 'api_key':
      if (c.in === 'query') url.searchParams.set(c.name, c.apiKey);
      else headers[c.name.toLowerCase()] = c.apiKey;
      break;
    case 'basic':
      headers.authorization = `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
      break;
    case 'bearer':
      headers.authorization = `Bearer ${c.token}`;
      break;
    case 'oauth2_client_credentials':
      headers.authorization = `Bearer ${await clientCredentialsToken(ctx.http, ctx.connectionId, c)}`;
      break;
    case 'none':
      break;
  }
}

async function call(
  ctx: Ctx,
  req: { method: string; path: string; query?: Record<string, unknown>; headers?: Record<string, string> },
  body?: unknown,
): Promise<HttpResponse> {
  const send = async () => {
    const url = resolveUrl(ctx.settings, req.path, req.query);
    const headers: Record<string, string> = { ...lowerKeys(ctx.settings.headers), ...lowerKeys(req.headers) };
    await authorize(ctx, url, headers);
    if (typeof body === 'string') {
      headers['content-type'] ??= 'text/plain; charset=utf-8';
      return ctx.http.send({ method: req.method, url: url.href, headers, body });
    }
    return ctx.http.send({ method: req.method, url: url.href, headers, json: body });
  };
  const res = await send();
  const c = ctx.credentials;
  // A cached OAuth token may have been revoked early: fetch a new one once.
  if (res.status === 401 && c.authKind === 'oauth2_client_credentials') {
    forgetToken(ctx.connectionId, c);
    return send();
  }
  return res;
}

const Method = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

export const httpIntegration = defineIntegration({
  id: 'http',
  name: 'HTTP request',
  description: 'Call any REST API: a base URL and the auth it needs (API key, basic, bearer, OAuth 2).',
  who: 'The HTTP API',
  category: 'http',
  authKinds: ['none', 'api_key', 'basic', 'bearer', 'oauth2_client_credentials'],
  credentials: Credentials,
  settings: Settings,
  authKindOf: (c) => c.authKind,
  async test(ctx) {
    if (ctx.settings.testPath) {
      await ctx.http.expectOk(await probe(ctx, ctx.settings.testPath));
      return { verified: true };
    }
    if (ctx.credentials.authKind === 'oauth2_client_credentials') {
      forgetToken(ctx.connectionId, ctx.credentials);
      await clientCredentialsToken(ctx.http, ctx.connectionId, ctx.credentials);
      return { verified: true, message: 'the token endpoint issued a token' };
    }
    return { verified: false, message: 'set settings.testPath to verify the credentials' };
  },
  actions: {
    request: action({
      description: 'Send one HTTP request to a path under the base URL and return the response.',
      input: z
        .object({
          method: Method.default('GET'),
          path: z.string().max(2000).default('/'),
          query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
          headers: HeaderMap.optional(),
          body: z.unknown().optional().describe('JSON value, or a string sent as is'),
          throwOnHttpError: z
            .boolean()
            .default(true)
            .describe('Fail the action on a non-2xx answer (false: return it as output)'),
        })
        .strict(),
      output: z.object({
        status: z.number().int(),
        headers: z.record(z.string(), z.string()),
        body: z.unknown().describe('Parsed JSON when the answer is JSON, else the text'),
        truncated: z.boolean(),
      }),
      async run(ctx, input) {
        const res = await call(ctx, input, input.body);
        if (input.throwOnHttpError && (res.status < 200 || res.status >= 300)) {
          throw ctx.http.failure(res, res.text.slice(0, 300) || undefined);
        }
        return {
          status: res.status,
          headers: res.headers,
          body: res.json ?? res.text,
          truncated: res.truncated,
        };
      },
    }),
  },
});

/** The test call: a GET of `testPath` with the connection's auth; returns a request for expectOk. */
async function probe(ctx: Ctx, path: string) {
  const url = resolveUrl(ctx.settings, path);
  const headers: Record<string, string> = lowerKeys(ctx.settings.headers);
  await authorize(ctx, url, headers);
  return { method: 'GET', url: url.href, headers };
}
