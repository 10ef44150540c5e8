import { createHmac, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { HeaderMap, HttpUrl, lowerKeys, Secret } from './schemas.ts';
import { actionsFor, defineIntegration } from './types.ts';

/**
 * Outbound webhook: POST a JSON payload to a URL. With a signing secret, requests carry the Standard
 * Webhooks headers (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`; a secret written `whsec_<base64>`
 * is used as those bytes, any other as its UTF-8 bytes.
 */
const Credentials = z
  .object({
    url: HttpUrl.describe('Where to POST (the URL may itself carry a token, so it is kept secret)'),
    signingSecret: Secret.optional().describe('Signs each request (Standard Webhooks)'),
  })
  .strict();
type Credentials = z.infer<typeof Credentials>;

const Settings = z
  .object({ headers: HeaderMap.optional().describe('Extra headers sent with every request (not secret)') })
  .strict();
type Settings = z.infer<typeof Settings>;

export function signingKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

const action = actionsFor<Credentials, Settings>();

export const webhookIntegration = defineIntegration({
  id: 'webhook',
  name: 'Outbound webhook',
  description: 'POST JSON to a URL of your choice, signed with a shared secret if you give one.',
  who: 'The webhook receiver',
  category: 'http',
  authKinds: ['webhook_url'],
  credentials: Credentials,
  settings: Settings,
  actions: {
    post: action({
      description: 'POST a JSON payload; any 2xx answer is success.',
      input: z
        .object({
          payload: z.unknown().refine((v) => v !== undefined, 'is required'),
          eventType: z.string().min(1).max(200).optional().describe('Sent as the webhook-event header'),
        })
        .strict(),
      output: z.object({ status: z.number().int(), body: z.unknown() }),
      async run(ctx, input) {
        // The id stays the same when the caller retries the same logical call, so receivers de-duplicate.
        const id = ctx.requestId ?? randomUUID();
        const timestamp = Math.floor(Date.now() / 1000);
        const body = JSON.stringify(input.payload);
        const headers: Record<string, string> = {
          ...lowerKeys(ctx.settings.headers),
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'idempotency-key': id,
        };
        if (input.eventType) headers['webhook-event'] = input.eventType;
        if (ctx.credentials.signingSecret) {
          headers['webhook-signature'] = sign(ctx.credentials.signingSecret, id, timestamp, body);
        }
        const res = await ctx.http.expectOk({ method: 'POST', url: ctx.credentials.url, headers, body });
        return { status: res.status, body: res.json ?? res.text };
      },
    }),
  },
});
