import { z } from 'zod';
import { ValidationError } from '@platform/kit';
import { callRejected, credentialsRejected, rateLimited, upstreamFailed } from './errors.ts';
import { retryAfterSeconds, type HttpResponse } from './outbound.ts';
import { HttpUrl, Secret } from './schemas.ts';
import { actionsFor, defineIntegration, type ActionContext } from './types.ts';

/**
 * Slack: post a message through an incoming webhook (https://api.slack.com/messaging/webhooks) or
 * with a bot token and the Web API's chat.postMessage (https://api.slack.com/methods/chat.postMessage).
 */
const Credentials = z.discriminatedUnion('authKind', [
  z
    .object({
      authKind: z.literal('webhook_url'),
      webhookUrl: HttpUrl.describe('Incoming webhook URL (https://hooks.slack.com/services/…)'),
    })
    .strict(),
  z.object({ authKind: z.literal('bearer'), botToken: Secret.describe('Bot token, xoxb-…') }).strict(),
]);
type Credentials = z.infer<typeof Credentials>;

const Settings = z
  .object({ defaultChannel: z.string().min(1).max(200).optional().describe('Channel id or #name') })
  .strict();
type Settings = z.infer<typeof Settings>;

const env = {
  /** Slack Web API base URL (tests point it at a local fake). */
  SLACK_API_URL: HttpUrl.default('https://slack.com/api'),
};

const who = 'Slack';
const authErrors = new Set([
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'missing_scope',
  'no_permission',
  'team_access_not_granted',
]);
const transientErrors = new Set(['fatal_error', 'internal_error', 'service_unavailable', 'request_timeout']);

/** Web API methods answer 200 with `{ok: false, error}`; this turns that into the typed error. */
function webApiResult(res: HttpResponse, ctx: ActionContext<Credentials, Settings>) {
  const body = (res.json ?? {}) as { ok?: boolean; error?: string; [k: string]: unknown };
  if (res.status === 429 || body.error === 'ratelimited') {
    throw rateLimited(who, retryAfterSeconds(res.headers));
  }
  if (res.status >= 500 || (body.error && transientErrors.has(body.error))) {
    throw upstreamFailed(who, res.status, body.error);
  }
  if (body.error && authErrors.has(body.error)) throw credentialsRejected(who, body.error);
  if (res.status !== 200 || body.ok !== true) {
    throw ctx.http.failure(res, body.error ?? res.text.slice(0, 200));
  }
  return body;
}

function webApi(ctx: ActionContext<Credentials, Settings>, method: string, token: string, json: unknown) {
  return ctx.http.send({
    method: 'POST',
    url: `${String(ctx.env.SLACK_API_URL).replace(/\/+$/, '')}/${method}`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
    json,
  });
}

const action = actionsFor<Credentials, Settings>();

export const slackIntegration = defineIntegration({
  id: 'slack',
  name: 'Slack',
  description: 'Post messages to Slack channels with an incoming webhook or a bot token.',
  category: 'messaging',
  authKinds: ['webhook_url', 'bearer'],
  credentials: Credentials,
  settings: Settings,
  env,
  authKindOf: (c) => c.authKind,
  async test(ctx) {
    if (ctx.credentials.authKind === 'webhook_url') {
      return { verified: false, message: 'an incoming webhook cannot be checked without posting' };
    }
    const body = webApiResult(await webApi(ctx, 'auth.test', ctx.credentials.botToken, {}), ctx);
    return { verified: true, message: `authenticated as ${String(body.user)} in ${String(body.team)}` };
  },
  actions: {
    'chat.postMessage': action({
      description: 'Post a message to a channel (the webhook posts to its own channel).',
      input: z
        .object({
          channel: z.string().min(1).max(200).optional().describe('Defaults to settings.defaultChannel'),
          text: z.string().min(1).max(40_000),
          blocks: z
            .array(z.looseObject({ type: z.string() }))
            .max(50)
            .optional(),
          threadTs: z.string().max(64).optional().describe('Reply in this thread'),
          unfurlLinks: z.boolean().optional(),
        })
        .strict(),
      output: z.object({ ok: z.boolean(), channel: z.string().nullable(), ts: z.string().nullable() }),
      async run(ctx, input) {
        const message = {
          text: input.text,
          blocks: input.blocks,
          thread_ts: input.threadTs,
          unfurl_links: input.unfurlLinks,
        };
        const c = ctx.credentials;
        if (c.authKind === 'webhook_url') {
          const res = await ctx.http.send({ method: 'POST', url: c.webhookUrl, json: message });
          if (res.status === 200) return { ok: true, channel: null, ts: null };
          const code = res.text.trim().slice(0, 100);
          if (['no_service', 'invalid_token', 'no_team', 'team_disabled'].includes(code)) {
            throw credentialsRejected(who, code);
          }
          if (res.status === 404 || res.status === 410 || res.status === 400) {
            throw callRejected(who, res.status, code);
          }
          throw ctx.http.failure(res, code);
        }
        const channel = input.channel ?? ctx.settings.defaultChannel;
        if (!channel) {
          throw new ValidationError([
            { field: 'input.channel', message: 'is required (the connection has no defaultChannel)' },
          ]);
        }
        const body = webApiResult(
          await webApi(ctx, 'chat.postMessage', c.botToken, { channel, ...message }),
          ctx,
        );
        return { ok: true, channel: String(body.channel ?? channel), ts: body.ts ? String(body.ts) : null };
      },
    }),
  },
});
