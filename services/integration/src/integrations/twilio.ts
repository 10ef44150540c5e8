import { z } from 'zod';
import { ValidationError } from '@platform/kit';
import { credentialsRejected, failureForStatus, rateLimited } from './errors.ts';
import { retryAfterSeconds, type HttpResponse } from './outbound.ts';
import { HttpUrl, PhoneNumber, Secret } from './schemas.ts';
import { actionsFor, defineIntegration, type ActionContext } from './types.ts';

/**
 * Twilio REST API 2010-04-01 with HTTP Basic (Account SID : Auth Token): SMS through Messages and
 * voice calls through Calls, for the Phone and SIP channels (https://www.twilio.com/docs/usage/api).
 */
const Credentials = z
  .object({
    accountSid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must be the Account SID (AC + 32 hex characters)'),
    authToken: Secret,
  })
  .strict();
type Credentials = z.infer<typeof Credentials>;

const Settings = z
  .object({
    fromNumber: PhoneNumber.optional().describe('Default sender (a Twilio number)'),
    messagingServiceSid: z
      .string()
      .regex(/^MG[0-9a-fA-F]{32}$/)
      .optional()
      .describe('Send SMS through this Messaging Service instead of fromNumber'),
  })
  .strict();
type Settings = z.infer<typeof Settings>;

const env = {
  /** Twilio REST API base URL (tests point it at a local fake). */
  TWILIO_API_URL: HttpUrl.default('https://api.twilio.com'),
};

const who = 'Twilio';
type Ctx = ActionContext<Credentials, Settings>;

function accountUrl(ctx: Ctx, resource: string) {
  const base = String(ctx.env.TWILIO_API_URL).replace(/\/+$/, '');
  return `${base}/2010-04-01/Accounts/${ctx.credentials.accountSid}${resource}`;
}

function basicAuth(c: Credentials) {
  return `Basic ${Buffer.from(`${c.accountSid}:${c.authToken}`).toString('base64')}`;
}

/** Errors are `{code, message, more_info, status}`; 20003 is failed authentication, 20429 throttling. */
function result(res: HttpResponse): Record<string, unknown> {
  const body = (res.json ?? {}) as Record<string, unknown>;
  if (res.status >= 200 && res.status < 300) return body;
  const detail = typeof body.message === 'string' ? body.message : res.text.slice(0, 200);
  if (body.code === 20003 || body.code === 20005) throw credentialsRejected(who, detail);
  if (body.code === 20429) throw rateLimited(who, retryAfterSeconds(res.headers));
  throw failureForStatus(who, res.status, detail, retryAfterSeconds(res.headers));
}

async function create(ctx: Ctx, resource: string, form: Record<string, string | undefined>) {
  const fields = Object.fromEntries(Object.entries(form).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  const res = await ctx.http.send({
    method: 'POST',
    url: accountUrl(ctx, resource),
    headers: { authorization: basicAuth(ctx.credentials) },
    form: fields,
  });
  const body = result(res);
  return {
    sid: String(body.sid),
    status: String(body.status),
    to: String(body.to),
    from: typeof body.from === 'string' ? body.from : null,
  };
}

const Output = z.object({
  sid: z.string(),
  status: z.string().describe('queued, sending, sent… as Twilio reports it'),
  to: z.string(),
  from: z.string().nullable(),
});

const action = actionsFor<Credentials, Settings>();

export const twilioIntegration = defineIntegration({
  id: 'twilio',
  name: 'Twilio',
  description: 'Send SMS and place voice calls (Phone and SIP channels) through Twilio.',
  category: 'telephony',
  authKinds: ['basic'],
  credentials: Credentials,
  settings: Settings,
  env,
  async test(ctx) {
    const res = await ctx.http.send({
      method: 'GET',
      url: accountUrl(ctx, '.json'),
      headers: { authorization: basicAuth(ctx.credentials) },
    });
    const account = result(res);
    if (account.status !== 'active')
      throw credentialsRejected(who, `the account is ${String(account.status)}`);
    return {
      verified: true,
      message: `account ${String(account.friendly_name ?? ctx.credentials.accountSid)}`,
    };
  },
  actions: {
    'messages.create': action({
      description: 'Send an SMS.',
      input: z
        .object({
          to: PhoneNumber,
          body: z.string().min(1).max(1600),
          from: PhoneNumber.optional().describe('Defaults to settings.fromNumber or the Messaging Service'),
        })
        .strict(),
      output: Output,
      async run(ctx, input) {
        const from = input.from ?? (ctx.settings.messagingServiceSid ? undefined : ctx.settings.fromNumber);
        if (!from && !ctx.settings.messagingServiceSid) {
          throw new ValidationError([
            { field: 'input.from', message: 'is required (the connection has no fromNumber)' },
          ]);
        }
        return create(ctx, '/Messages.json', {
          To: input.to,
          Body: input.body,
          From: from,
          MessagingServiceSid: from ? undefined : ctx.settings.messagingServiceSid,
        });
      },
    }),
    'calls.create': action({
      description: 'Place a voice call that plays TwiML (inline, or fetched from a URL).',
      input: z
        .object({
          to: z.string().min(1).max(256).describe('E.164 number, sip:… or client:…'),
          from: PhoneNumber.optional().describe('Defaults to settings.fromNumber'),
          twiml: z.string().min(1).max(4000).optional(),
          url: HttpUrl.optional().describe('TwiML document Twilio fetches when the call connects'),
        })
        .strict()
        .refine((i) => (i.twiml === undefined) !== (i.url === undefined), {
          message: 'give either twiml or url',
          path: ['twiml'],
        }),
      output: Output,
      async run(ctx, input) {
        const from = input.from ?? ctx.settings.fromNumber;
        if (!from) {
          throw new ValidationError([
            { field: 'input.from', message: 'is required (the connection has no fromNumber)' },
          ]);
        }
        return create(ctx, '/Calls.json', { To: input.to, From: from, Twiml: input.twiml, Url: input.url });
      },
    }),
  },
});
