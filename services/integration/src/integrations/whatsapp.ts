import { z } from 'zod';
import { callRejected, credentialsRejected, rateLimited, upstreamFailed } from './errors.ts';
import { retryAfterSeconds, type HttpResponse } from './outbound.ts';
import { HttpUrl, Secret } from './schemas.ts';
import { actionsFor, defineIntegration, type ActionContext } from './types.ts';

/**
 * WhatsApp Business Cloud API (Graph API): `POST /{phone-number-id}/messages` with a bearer access
 * token (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages).
 */
const Credentials = z
  .object({ accessToken: Secret.describe('System user or temporary access token') })
  .strict();
type Credentials = z.infer<typeof Credentials>;

const Settings = z
  .object({
    phoneNumberId: z
      .string()
      .regex(/^\d{1,30}$/, 'digits only')
      .describe('The sending phone number id (WhatsApp Manager → API setup)'),
  })
  .strict();
type Settings = z.infer<typeof Settings>;

const env = {
  /** Graph API base URL with its version (tests point it at a local fake). */
  WHATSAPP_API_URL: HttpUrl.default('https://graph.facebook.com/v21.0'),
};

const who = 'WhatsApp';
type Ctx = ActionContext<Credentials, Settings>;

// Graph API error codes: https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes
const rateLimitCodes = new Set([4, 80007, 130429, 131048, 131056]);
const authCodes = new Set([0, 3, 10, 190]);

function graph(ctx: Ctx, path: string, json?: unknown) {
  const base = String(ctx.env.WHATSAPP_API_URL).replace(/\/+$/, '');
  return ctx.http.send({
    method: json === undefined ? 'GET' : 'POST',
    url: `${base}/${path}`,
    headers: { authorization: `Bearer ${ctx.credentials.accessToken}` },
    json,
  });
}

function result(res: HttpResponse): Record<string, unknown> {
  const body = (res.json ?? {}) as Record<string, unknown>;
  if (res.status >= 200 && res.status < 300) return body;
  const error = (body.error ?? {}) as { message?: string; code?: number };
  const detail = error.message ?? res.text.slice(0, 200);
  const code = error.code;
  if (res.status === 401 || (code !== undefined && (authCodes.has(code) || (code >= 200 && code < 300)))) {
    throw credentialsRejected(who, detail);
  }
  if (res.status === 429 || (code !== undefined && rateLimitCodes.has(code))) {
    throw rateLimited(who, retryAfterSeconds(res.headers));
  }
  if (res.status >= 500 || code === 131000 || code === 1 || code === 2) {
    throw upstreamFailed(who, res.status, detail);
  }
  throw callRejected(who, res.status, detail);
}

const action = actionsFor<Credentials, Settings>();

export const whatsappIntegration = defineIntegration({
  id: 'whatsapp',
  name: 'WhatsApp Cloud API',
  description: 'Send WhatsApp messages (text or approved templates) from a business phone number.',
  category: 'messaging',
  authKinds: ['bearer'],
  credentials: Credentials,
  settings: Settings,
  env,
  async test(ctx) {
    const number = result(
      await graph(ctx, `${ctx.settings.phoneNumberId}?fields=display_phone_number,verified_name`),
    );
    return { verified: true, message: `sending as ${String(number.display_phone_number)}` };
  },
  actions: {
    'messages.send': action({
      description: 'Send a text message, or a template message (needed outside the 24-hour window).',
      input: z
        .object({
          to: z.string().regex(/^\+?[1-9]\d{6,14}$/, 'international number, digits only (+ optional)'),
          text: z.string().min(1).max(4096).optional(),
          previewUrl: z.boolean().optional(),
          template: z
            .object({
              name: z.string().min(1).max(512),
              languageCode: z.string().min(2).max(15),
              components: z.array(z.looseObject({ type: z.string() })).optional(),
            })
            .strict()
            .optional(),
        })
        .strict()
        .refine((i) => (i.text === undefined) !== (i.template === undefined), {
          message: 'give either text or template',
          path: ['text'],
        }),
      output: z.object({ messageId: z.string(), waId: z.string().nullable() }),
      async run(ctx, input) {
        const to = input.to.replace(/^\+/, '');
        const message = input.template
          ? {
              type: 'template',
              template: {
                name: input.template.name,
                language: { code: input.template.languageCode },
                components: input.template.components,
              },
            }
          : { type: 'text', text: { body: input.text, preview_url: input.previewUrl ?? false } };
        const body = result(
          await graph(ctx, `${ctx.settings.phoneNumberId}/messages`, {
            messaging_product: 'whatsapp',
            recipient_type: 'individual',
            to,
            ...message,
          }),
        );
        const messages = (body.messages ?? []) as Array<{ id?: string }>;
        const contacts = (body.contacts ?? []) as Array<{ wa_id?: string }>;
        return { messageId: String(messages[0]?.id ?? ''), waId: contacts[0]?.wa_id ?? null };
      },
    }),
  },
});
