import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SLACK_BOT_TOKEN,
  TELEGRAM_TOKEN,
  TWILIO_SID,
  TWILIO_TOKEN,
  WHATSAPP_PHONE_ID,
  WHATSAPP_TOKEN,
} from './fakes/messaging.ts';
import { basicAuthOf } from './fakes/server.ts';
import { newOrg, startHarness, type Harness } from './helpers.ts';

/** Slack, Telegram, WhatsApp and Twilio actions over NATS against fakes that check requests like the real APIs. */
describe('messaging and telephony actions', () => {
  let h: Harness;
  const org = newOrg('msg');
  const ids: Record<string, string> = {};
  const run = (connection: string, action: string, input: unknown) =>
    h.rpc('svc.integration.run-action', { orgId: org, connectionId: ids[connection], action, input });
  const last = (prefix: string) => [...h.fake.requests].reverse().find((r) => r.path.startsWith(prefix))!;

  beforeAll(async () => {
    h = await startHarness();
    const create = async (key: string, body: unknown) => {
      const res = await h.api(org, 'POST', '/api/v1/connections', { body });
      if (res.status !== 201) throw new Error(`${key}: ${res.status} ${res.text}`);
      ids[key] = res.body.id;
    };
    await create('slackBot', {
      integrationId: 'slack',
      name: 'Slack bot',
      credentials: { authKind: 'bearer', botToken: SLACK_BOT_TOKEN },
      settings: { defaultChannel: 'C1' },
    });
    await create('slackHook', {
      integrationId: 'slack',
      name: 'Slack hook',
      credentials: { webhookUrl: `${h.fake.url}/slack/hooks/T1/B1/valid` },
    });
    await create('slackHookRevoked', {
      integrationId: 'slack',
      name: 'Slack hook revoked',
      credentials: { webhookUrl: `${h.fake.url}/slack/hooks/T1/B1/revoked` },
    });
    await create('telegram', {
      integrationId: 'telegram',
      name: 'Bot',
      credentials: { botToken: TELEGRAM_TOKEN },
    });
    await create('whatsapp', {
      integrationId: 'whatsapp',
      name: 'WhatsApp',
      credentials: { accessToken: WHATSAPP_TOKEN },
      settings: { phoneNumberId: WHATSAPP_PHONE_ID },
    });
    await create('twilio', {
      integrationId: 'twilio',
      name: 'Twilio',
      credentials: { accountSid: TWILIO_SID, authToken: TWILIO_TOKEN },
      settings: { fromNumber: '+15550100000' },
    });
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('verified each connection with a harmless call when it was created', () => {
    const paths = h.fake.requests.map((r) => r.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/slack/api/auth.test',
        `/telegram/bot${TELEGRAM_TOKEN}/getMe`,
        `/whatsapp/v21.0/${WHATSAPP_PHONE_ID}`,
        `/twilio/2010-04-01/Accounts/${TWILIO_SID}.json`,
      ]),
    );
    // Webhooks cannot be checked without posting: nothing was sent to them.
    expect(paths.some((p) => p.startsWith('/slack/hooks'))).toBe(false);
  });

  it('Slack: chat.postMessage with a bot token', async () => {
    const reply = await run('slackBot', 'chat.postMessage', { text: 'Deploy done', threadTs: '1.2' });
    expect(reply).toMatchObject({
      ok: true,
      data: {
        output: { ok: true, channel: 'C1', ts: '1700000000.000100' },
        integrationId: 'slack',
        action: 'chat.postMessage',
      },
    });
    const req = last('/slack/api/chat.postMessage');
    expect(req.headers.authorization).toBe(`Bearer ${SLACK_BOT_TOKEN}`);
    expect(req.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(req.json).toEqual({ channel: 'C1', text: 'Deploy done', thread_ts: '1.2' });
    const other = await run('slackBot', 'chat.postMessage', { text: 'x', channel: 'C_UNKNOWN' });
    expect(other).toMatchObject({ ok: false, error: { kind: 'validation', retryable: false } });
    expect(other.error.message).toContain('channel_not_found');
    const limited = await run('slackBot', 'chat.postMessage', { text: 'x', channel: 'C_RATE' });
    expect(limited).toMatchObject({ ok: false, error: { kind: 'unavailable', retryable: true } });
    expect(limited.error.message).toContain('retry after 7 s');
    const down = await run('slackBot', 'chat.postMessage', { text: 'x', channel: 'C_DOWN' });
    expect(down).toMatchObject({ ok: false, error: { kind: 'unavailable', retryable: true } });
    const status = await h.api(org, 'GET', `/api/v1/connections/${ids.slackBot}`);
    expect(status.body.status).toBe('failing'); // a 5xx is the connection's trouble…
    await run('slackBot', 'chat.postMessage', { text: 'again' });
    const healed = await h.api(org, 'GET', `/api/v1/connections/${ids.slackBot}`);
    expect(healed.body).toMatchObject({ status: 'active', statusReason: null }); // …until it works again
    expect(healed.body.lastUsedAt).toBeTypeOf('string');
  });

  it('Slack: incoming webhook, and a revoked webhook is a credentials failure', async () => {
    const reply = await run('slackHook', 'chat.postMessage', { text: 'Hello from a workflow' });
    expect(reply).toMatchObject({ ok: true, data: { output: { ok: true, channel: null, ts: null } } });
    const req = last('/slack/hooks/T1/B1/valid');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({ text: 'Hello from a workflow' });
    const revoked = await run('slackHookRevoked', 'chat.postMessage', { text: 'x' });
    expect(revoked).toMatchObject({ ok: false, error: { kind: 'unauthorized', retryable: false } });
    expect(revoked.error.message).not.toContain('/hooks/');
    const status = await h.api(org, 'GET', `/api/v1/connections/${ids.slackHookRevoked}`);
    expect(status.body).toMatchObject({ status: 'failing' });
    expect(status.body.statusReason).toContain('no_service');
  });

  it('Telegram: sendMessage, with the API errors typed', async () => {
    const reply = await run('telegram', 'sendMessage', {
      chatId: 555,
      text: '*hi*',
      parseMode: 'MarkdownV2',
    });
    expect(reply).toMatchObject({
      ok: true,
      data: { output: { messageId: 42, chatId: 555, date: 1_700_000_000 } },
    });
    const req = last(`/telegram/bot${TELEGRAM_TOKEN}/sendMessage`);
    expect(req.method).toBe('POST');
    expect(req.json).toEqual({ chat_id: 555, text: '*hi*', parse_mode: 'MarkdownV2' });
    const missingChat = await run('telegram', 'sendMessage', { text: 'hi' });
    expect(missingChat).toMatchObject({
      ok: false,
      error: { kind: 'validation', errors: [{ field: 'input.chatId' }] },
    });
    const notFound = await run('telegram', 'sendMessage', { chatId: 'unknown', text: 'hi' });
    expect(notFound).toMatchObject({ ok: false, error: { kind: 'validation', retryable: false } });
    expect(notFound.error.message).toContain('chat not found');
    const flood = await run('telegram', 'sendMessage', { chatId: 'flood', text: 'hi' });
    expect(flood).toMatchObject({ ok: false, error: { kind: 'unavailable', retryable: true } });
    expect(flood.error.message).toContain('retry after 5 s');
    // Input errors are not the connection's fault.
    expect((await h.api(org, 'GET', `/api/v1/connections/${ids.telegram}`)).body.status).toBe('active');
  });

  it('WhatsApp: text and template messages', async () => {
    const reply = await run('whatsapp', 'messages.send', { to: '+491701234567', text: 'Your order shipped' });
    expect(reply).toMatchObject({
      ok: true,
      data: { output: { messageId: 'wamid.HBgL', waId: '491701234567' } },
    });
    const req = last(`/whatsapp/v21.0/${WHATSAPP_PHONE_ID}/messages`);
    expect(req.headers.authorization).toBe(`Bearer ${WHATSAPP_TOKEN}`);
    expect(req.json).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '491701234567',
      type: 'text',
      text: { body: 'Your order shipped', preview_url: false },
    });
    const template = await run('whatsapp', 'messages.send', {
      to: '491701234567',
      template: { name: 'order_update', languageCode: 'en_US' },
    });
    expect(template.ok).toBe(true);
    expect(last(`/whatsapp/v21.0/${WHATSAPP_PHONE_ID}/messages`).json.template).toEqual({
      name: 'order_update',
      language: { code: 'en_US' },
    });
    const both = await run('whatsapp', 'messages.send', { to: '491701234567' });
    expect(both).toMatchObject({
      ok: false,
      error: { kind: 'validation', errors: [{ field: 'input.text' }] },
    });
    const notAllowed = await run('whatsapp', 'messages.send', { to: '15550000000', text: 'x' });
    expect(notAllowed).toMatchObject({ ok: false, error: { kind: 'validation', retryable: false } });
    const throttled = await run('whatsapp', 'messages.send', { to: '15550000429', text: 'x' });
    expect(throttled).toMatchObject({ ok: false, error: { kind: 'unavailable', retryable: true } });
  });

  it('Twilio: SMS and calls with Basic auth and form bodies', async () => {
    const sms = await run('twilio', 'messages.create', { to: '+15557654321', body: 'Code 1234' });
    expect(sms).toMatchObject({
      ok: true,
      data: {
        output: { sid: `SM${'0f'.repeat(16)}`, status: 'queued', to: '+15557654321', from: '+15550100000' },
      },
    });
    const req = last(`/twilio/2010-04-01/Accounts/${TWILIO_SID}/Messages.json`);
    expect(basicAuthOf(req)).toEqual({ user: TWILIO_SID, pass: TWILIO_TOKEN });
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(req.form)).toEqual({
      To: '+15557654321',
      Body: 'Code 1234',
      From: '+15550100000',
    });
    const call = await run('twilio', 'calls.create', {
      to: '+15557654321',
      twiml: '<Response><Say>Hi</Say></Response>',
    });
    expect(call).toMatchObject({
      ok: true,
      data: { output: { sid: `CA${'0f'.repeat(16)}`, status: 'queued' } },
    });
    expect(Object.fromEntries(last(`/twilio/2010-04-01/Accounts/${TWILIO_SID}/Calls.json`).form)).toEqual({
      To: '+15557654321',
      From: '+15550100000',
      Twiml: '<Response><Say>Hi</Say></Response>',
    });
    const invalid = await run('twilio', 'messages.create', { to: '+15005550001', body: 'x' });
    expect(invalid).toMatchObject({ ok: false, error: { kind: 'validation', retryable: false } });
    expect(invalid.error.message).toContain('not a valid phone number');
    const unavailable = await run('twilio', 'messages.create', { to: '+15005550500', body: 'x' });
    expect(unavailable).toMatchObject({ ok: false, error: { kind: 'unavailable', retryable: true } });
    const badInput = await run('twilio', 'calls.create', { to: '+15557654321' });
    expect(badInput).toMatchObject({
      ok: false,
      error: { kind: 'validation', errors: [{ field: 'input.twiml' }] },
    });
  });

  it('Twilio: rotated auth token → unauthorized, connection failing, event published', async () => {
    const created = await h.api(org, 'POST', '/api/v1/connections', {
      body: {
        integrationId: 'twilio',
        name: 'Twilio old token',
        credentials: { accountSid: TWILIO_SID, authToken: 'old-token-rotated' },
        settings: { fromNumber: '+15550100000' },
        verify: false,
      },
    });
    const events: any[] = [];
    const sub = h.nc.subscribe('evt.connection.failing', {
      callback: (_e, m) => void events.push(JSON.parse(m.string())),
    });
    const reply = await h.rpc('svc.integration.run-action', {
      orgId: org,
      connectionId: created.body.id,
      action: 'messages.create',
      input: { to: '+15557654321', body: 'x' },
    });
    expect(reply).toMatchObject({ ok: false, error: { kind: 'unauthorized', retryable: false } });
    expect(reply.error.message).toContain('rejected');
    expect(reply.error.message).not.toContain('old-token-rotated');
    const status = await h.api(org, 'GET', `/api/v1/connections/${created.body.id}`);
    expect(status.body).toMatchObject({ status: 'failing' });
    for (let i = 0; i < 50 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    sub.unsubscribe();
    expect(events[0]).toMatchObject({
      orgId: org,
      data: { connectionId: created.body.id, integrationId: 'twilio' },
    });
  });
});
