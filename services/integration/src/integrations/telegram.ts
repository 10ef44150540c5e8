import { z } from 'zod';
import { ValidationError } from '@platform/kit';
import { callRejected, credentialsRejected, rateLimited, upstreamFailed } from './errors.ts';
import type { HttpResponse } from './outbound.ts';
import { HttpUrl } from './schemas.ts';
import { actionsFor, defineIntegration, type ActionContext } from './types.ts';

/** Telegram Bot API (https://core.telegram.org/bots/api): the token goes in the path, `/bot<token>/`. */
const Credentials = z
  .object({
    botToken: z
      .string()
      .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, 'must look like 123456:ABC-DEF… (from @BotFather)'),
  })
  .strict();
type Credentials = z.infer<typeof Credentials>;

const ChatId = z.union([z.number().int(), z.string().min(1).max(100)]);
const Settings = z
  .object({ defaultChatId: ChatId.optional().describe('Chat id or @channelusername') })
  .strict();
type Settings = z.infer<typeof Settings>;

const env = {
  /** Telegram Bot API base URL (tests point it at a local fake). */
  TELEGRAM_API_URL: HttpUrl.default('https://api.telegram.org'),
};

const who = 'Telegram';
type Ctx = ActionContext<Credentials, Settings>;

async function botApi(ctx: Ctx, method: string, json?: unknown) {
  const base = String(ctx.env.TELEGRAM_API_URL).replace(/\/+$/, '');
  const res = await ctx.http.send({
    method: json === undefined ? 'GET' : 'POST',
    url: `${base}/bot${ctx.credentials.botToken}/${method}`,
    json,
  });
  return result(res);
}

/** Every answer is `{ok, result}` or `{ok: false, error_code, description, parameters}`. */
function result(res: HttpResponse): Record<string, unknown> {
  const body = (res.json ?? {}) as {
    ok?: boolean;
    result?: Record<string, unknown>;
    description?: string;
    parameters?: { retry_after?: number };
  };
  if (res.status === 200 && body.ok === true && body.result) return body.result;
  const detail = body.description ?? res.text.slice(0, 200);
  // 401, and 404 for a token of the wrong shape, mean the bot token is not valid.
  if (res.status === 401 || res.status === 404) throw credentialsRejected(who, detail);
  if (res.status === 429) throw rateLimited(who, body.parameters?.retry_after);
  if (res.status >= 500) throw upstreamFailed(who, res.status, detail);
  // 400 (chat not found…) and 403 (bot blocked by the user) are about this message, not the bot.
  throw callRejected(who, res.status, detail);
}

const action = actionsFor<Credentials, Settings>();

export const telegramIntegration = defineIntegration({
  id: 'telegram',
  name: 'Telegram',
  description: 'Send messages as a Telegram bot.',
  category: 'messaging',
  authKinds: ['api_key'],
  credentials: Credentials,
  settings: Settings,
  env,
  async test(ctx) {
    const me = await botApi(ctx, 'getMe');
    return { verified: true, message: `bot @${String(me.username)}` };
  },
  actions: {
    sendMessage: action({
      description: 'Send a text message to a chat.',
      input: z
        .object({
          chatId: ChatId.optional().describe('Defaults to settings.defaultChatId'),
          text: z.string().min(1).max(4096),
          parseMode: z.enum(['MarkdownV2', 'HTML', 'Markdown']).optional(),
          disableNotification: z.boolean().optional(),
          replyToMessageId: z.number().int().optional(),
        })
        .strict(),
      output: z.object({
        messageId: z.number().int(),
        chatId: z.union([z.number(), z.string()]),
        date: z.number().int(),
      }),
      async run(ctx, input) {
        const chatId = input.chatId ?? ctx.settings.defaultChatId;
        if (chatId === undefined) {
          throw new ValidationError([
            { field: 'input.chatId', message: 'is required (the connection has no defaultChatId)' },
          ]);
        }
        const message = await botApi(ctx, 'sendMessage', {
          chat_id: chatId,
          text: input.text,
          parse_mode: input.parseMode,
          disable_notification: input.disableNotification,
          reply_parameters: input.replyToMessageId ? { message_id: input.replyToMessageId } : undefined,
        });
        const chat = (message.chat ?? {}) as { id?: number | string };
        return {
          messageId: Number(message.message_id),
          chatId: chat.id ?? chatId,
          date: Number(message.date),
        };
      },
    }),
  },
});
