import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import { z } from 'zod';
import { isPrivateAddress } from '@platform/kit';
import {
  blocked,
  callRejected,
  credentialsRejected,
  ThirdPartyError,
  timedOut,
  unreachable,
  upstreamFailed,
} from './errors.ts';
import { Secret } from './schemas.ts';
import { actionsFor, defineIntegration, type ActionContext } from './types.ts';

/**
 * SMTP email through nodemailer. SMTP is not HTTP, so the address policy is applied here: the host
 * is resolved once, refused if private (unless allowed), and the connection goes to that address
 * (TLS still checks the certificate against the host name).
 */
const Credentials = z.discriminatedUnion('authKind', [
  z.object({ authKind: z.literal('basic'), username: z.string().min(1).max(512), password: Secret }).strict(),
  z
    .object({ authKind: z.literal('none') })
    .strict()
    .describe('Relays that accept mail without login'),
]);
type Credentials = z.infer<typeof Credentials>;

const Settings = z
  .object({
    host: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.:[\]-]+$/, 'a host name or IP address'),
    port: z.number().int().min(1).max(65_535).default(587),
    security: z
      .enum(['starttls', 'tls', 'none'])
      .default('starttls')
      .describe('starttls: upgrade required (port 587); tls: implicit TLS (465); none: plain text'),
    fromAddress: z.email(),
    fromName: z.string().max(200).optional(),
  })
  .strict();
type Settings = z.infer<typeof Settings>;

const who = 'The SMTP server';
type Ctx = ActionContext<Credentials, Settings>;

async function resolveHost(ctx: Ctx): Promise<string> {
  const host = ctx.settings.host.replace(/^\[|\]$/g, '');
  let address = host;
  if (!isIP(host)) {
    try {
      address = (await lookup(host)).address;
    } catch (err) {
      throw unreachable(who, `${host}: ${(err as Error).message}`);
    }
  }
  if (!ctx.allowPrivateNetwork && isPrivateAddress(address)) {
    throw blocked(`Requests to private or special addresses are refused (${host})`);
  }
  return address;
}

/** nodemailer errors carry `code` (EAUTH, ETIMEDOUT…) and the SMTP `responseCode`. */
function smtpFailure(err: unknown): ThirdPartyError {
  const e = err as { code?: string; responseCode?: number; response?: string; message?: string };
  const detail = (e.response ?? e.message ?? '').slice(0, 300);
  if (e.code === 'EAUTH' || e.responseCode === 535 || e.responseCode === 534 || e.responseCode === 530) {
    return credentialsRejected(who, detail);
  }
  if (e.code === 'ETIMEDOUT') return timedOut(who);
  if (e.code === 'ETLS')
    return new ThirdPartyError('validation', 502, `${who}: TLS failed: ${detail}`, 'network');
  if (e.responseCode && e.responseCode >= 400 && e.responseCode < 500) {
    return upstreamFailed(who, e.responseCode, detail); // 4yz replies are transient by definition
  }
  if (e.responseCode && e.responseCode >= 500) return callRejected(who, e.responseCode, detail);
  return unreachable(who, detail || 'connection failed');
}

function createTransport(ctx: Ctx, address: string) {
  const timeout = Math.max(1, ctx.deadline - Date.now());
  const { security, host, port } = ctx.settings;
  return nodemailer.createTransport({
    host: address,
    port,
    secure: security === 'tls',
    requireTLS: security === 'starttls',
    ignoreTLS: security === 'none',
    tls: isIP(host) ? {} : { servername: host },
    auth:
      ctx.credentials.authKind === 'basic'
        ? { user: ctx.credentials.username, pass: ctx.credentials.password }
        : undefined,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
}

async function withTransport<T>(
  ctx: Ctx,
  use: (t: ReturnType<typeof createTransport>) => Promise<T>,
): Promise<T> {
  const transport = createTransport(ctx, await resolveHost(ctx));
  try {
    return await use(transport);
  } catch (err) {
    throw smtpFailure(err);
  } finally {
    transport.close();
  }
}

const Recipients = z.union([z.email(), z.array(z.email()).min(1).max(50)]);
const action = actionsFor<Credentials, Settings>();

export const smtpIntegration = defineIntegration({
  id: 'smtp',
  name: 'Email (SMTP)',
  description: 'Send email through your SMTP server.',
  who: 'The SMTP server',
  category: 'email',
  authKinds: ['basic', 'none'],
  credentials: Credentials,
  settings: Settings,
  authKindOf: (c) => c.authKind,
  async test(ctx) {
    await withTransport(ctx, (t) => t.verify());
    return { verified: true, message: 'connected and logged in' };
  },
  actions: {
    send: action({
      description: 'Send one email (text and/or HTML).',
      input: z
        .object({
          to: Recipients,
          cc: Recipients.optional(),
          bcc: Recipients.optional(),
          replyTo: z.email().optional(),
          subject: z.string().min(1).max(998),
          text: z.string().max(1_000_000).optional(),
          html: z.string().max(1_000_000).optional(),
        })
        .strict()
        .refine((i) => i.text !== undefined || i.html !== undefined, {
          message: 'give text, html or both',
          path: ['text'],
        }),
      output: z.object({
        messageId: z.string(),
        accepted: z.array(z.string()),
        rejected: z.array(z.string()),
        response: z.string(),
      }),
      async run(ctx, input) {
        const { fromAddress, fromName } = ctx.settings;
        const info = await withTransport(ctx, (t) =>
          t.sendMail({
            from: fromName ? { name: fromName, address: fromAddress } : fromAddress,
            to: input.to,
            cc: input.cc,
            bcc: input.bcc,
            replyTo: input.replyTo,
            subject: input.subject,
            text: input.text,
            html: input.html,
          }),
        );
        const address = (a: string | { address: string }) => (typeof a === 'string' ? a : a.address);
        return {
          messageId: String(info.messageId),
          accepted: (info.accepted as Array<string | { address: string }>).map(address),
          rejected: (info.rejected as Array<string | { address: string }>).map(address),
          response: String(info.response ?? ''),
        };
      },
    }),
  },
});
