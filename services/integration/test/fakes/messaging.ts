import { basicAuthOf, type FakeHandler } from './server.ts';

/**
 * Fakes of Slack, Telegram, WhatsApp Cloud API and Twilio: they refuse what the real APIs refuse
 * (missing or wrong auth, a body of the wrong shape) with the real APIs' error bodies.
 */
export const SLACK_BOT_TOKEN = 'xoxb-1111-2222-validtoken';
export const TELEGRAM_TOKEN = '123456789:AAF-valid_token_for_tests_0123456789';
export const WHATSAPP_TOKEN = 'EAAG-valid-whatsapp-token';
export const WHATSAPP_PHONE_ID = '106540352242922';
export const TWILIO_SID = `AC${'a1'.repeat(16)}`;
export const TWILIO_TOKEN = 'twilio-auth-token-valid';

/** Mounted at /slack: the Web API under /api, incoming webhooks under /hooks. */
export const slackFake: FakeHandler = (req) => {
  if (req.path.startsWith('/hooks/')) {
    if (req.path.endsWith('/revoked')) return { status: 404, text: 'no_service' };
    if (req.headers['content-type'] !== 'application/json') return { status: 400, text: 'invalid_payload' };
    if (!req.json?.text) return { status: 400, text: 'no_text' };
    return { status: 200, text: 'ok' };
  }
  if (req.method !== 'POST') return { status: 405, json: { ok: false, error: 'method_not_supported' } };
  const authed = req.headers.authorization === `Bearer ${SLACK_BOT_TOKEN}`;
  if (req.path === '/api/auth.test') {
    return authed
      ? {
          json: {
            ok: true,
            url: 'https://acme.slack.com/',
            team: 'Acme',
            user: 'platform-bot',
            team_id: 'T1',
          },
        }
      : { json: { ok: false, error: 'invalid_auth' } };
  }
  if (req.path === '/api/chat.postMessage') {
    if (!req.headers.authorization) return { json: { ok: false, error: 'not_authed' } };
    if (!authed) return { json: { ok: false, error: 'invalid_auth' } };
    if (!String(req.headers['content-type']).startsWith('application/json')) {
      return { json: { ok: false, error: 'invalid_form_data' } };
    }
    const { channel, text } = req.json ?? {};
    if (channel === 'C_RATE')
      return { status: 429, headers: { 'retry-after': '7' }, json: { ok: false, error: 'ratelimited' } };
    if (channel === 'C_DOWN') return { status: 503, json: { ok: false, error: 'service_unavailable' } };
    if (!channel) return { json: { ok: false, error: 'channel_not_found' } };
    if (channel === 'C_UNKNOWN') return { json: { ok: false, error: 'channel_not_found' } };
    if (!text) return { json: { ok: false, error: 'no_text' } };
    return {
      json: { ok: true, channel, ts: '1700000000.000100', message: { text, thread_ts: req.json.thread_ts } },
    };
  }
  return { status: 404, json: { ok: false, error: 'unknown_method' } };
};

/** Mounted at /telegram. */
export const telegramFake: FakeHandler = (req) => {
  const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.path);
  if (!match) return { status: 404, json: { ok: false, error_code: 404, description: 'Not Found' } };
  const [, token, method] = match;
  if (token !== TELEGRAM_TOKEN)
    return { status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } };
  if (method === 'getMe') {
    return {
      json: { ok: true, result: { id: 123456789, is_bot: true, first_name: 'Test', username: 'test_bot' } },
    };
  }
  if (method === 'sendMessage') {
    const body = req.json ?? {};
    if (body.chat_id === undefined) {
      return {
        status: 400,
        json: { ok: false, error_code: 400, description: 'Bad Request: chat_id is empty' },
      };
    }
    if (!body.text)
      return {
        status: 400,
        json: { ok: false, error_code: 400, description: 'Bad Request: message text is empty' },
      };
    if (body.chat_id === 'unknown') {
      return {
        status: 400,
        json: { ok: false, error_code: 400, description: 'Bad Request: chat not found' },
      };
    }
    if (body.chat_id === 'flood') {
      return {
        status: 429,
        json: {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 5',
          parameters: { retry_after: 5 },
        },
      };
    }
    return {
      json: {
        ok: true,
        result: {
          message_id: 42,
          date: 1_700_000_000,
          chat: { id: body.chat_id, type: 'private' },
          text: body.text,
        },
      },
    };
  }
  return { status: 404, json: { ok: false, error_code: 404, description: 'Not Found: method not found' } };
};

const graphAuthError = {
  status: 401,
  json: {
    error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190, fbtrace_id: 'Ab1' },
  },
};

/** Mounted at /whatsapp (the base URL includes the API version, /whatsapp/v21.0). */
export const whatsappFake: FakeHandler = (req) => {
  if (req.headers.authorization !== `Bearer ${WHATSAPP_TOKEN}`) return graphAuthError;
  if (req.method === 'GET' && req.path === `/v21.0/${WHATSAPP_PHONE_ID}`) {
    return {
      json: { display_phone_number: '+1 555-010-0000', verified_name: 'Acme', id: WHATSAPP_PHONE_ID },
    };
  }
  if (req.method === 'POST' && req.path === `/v21.0/${WHATSAPP_PHONE_ID}/messages`) {
    const b = req.json ?? {};
    const invalid = (message: string) => ({
      status: 400,
      json: { error: { message, type: 'OAuthException', code: 100, fbtrace_id: 'Ab2' } },
    });
    if (b.messaging_product !== 'whatsapp')
      return invalid('(#100) The parameter messaging_product is required.');
    if (!b.to) return invalid('(#100) The parameter to is required.');
    if (b.type === 'text' && !b.text?.body) return invalid("(#100) The parameter text['body'] is required.");
    if (b.type === 'template' && (!b.template?.name || !b.template?.language?.code)) {
      return invalid('(#100) Invalid parameter template');
    }
    if (b.to === '15550000000') {
      return {
        status: 400,
        json: { error: { message: '(#131030) Recipient phone number not in allowed list', code: 131030 } },
      };
    }
    if (b.to === '15550000429') {
      return { status: 400, json: { error: { message: '(#130429) Rate limit hit', code: 130429 } } };
    }
    return {
      json: {
        messaging_product: 'whatsapp',
        contacts: [{ input: b.to, wa_id: b.to }],
        messages: [{ id: 'wamid.HBgL' }],
      },
    };
  }
  return { status: 400, json: { error: { message: 'Unsupported request', code: 100 } } };
};

/** Mounted at /twilio. */
export const twilioFake: FakeHandler = (req) => {
  const auth = basicAuthOf(req);
  if (!auth || auth.user !== TWILIO_SID || auth.pass !== TWILIO_TOKEN) {
    return {
      status: 401,
      json: {
        code: 20003,
        message: 'Authenticate',
        more_info: 'https://www.twilio.com/docs/errors/20003',
        status: 401,
      },
    };
  }
  const base = `/2010-04-01/Accounts/${TWILIO_SID}`;
  if (req.method === 'GET' && req.path === `${base}.json`) {
    return { json: { sid: TWILIO_SID, status: 'active', friendly_name: 'Acme production' } };
  }
  const isForm = String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded');
  const f = req.form;
  const error = (status: number, code: number, message: string) => ({
    status,
    json: { code, message, status },
  });
  if (req.method === 'POST' && (req.path === `${base}/Messages.json` || req.path === `${base}/Calls.json`)) {
    if (!isForm) return error(400, 20001, 'Invalid content type');
    if (!f.get('To')) return error(400, 21604, "A 'To' phone number is required.");
    if (f.get('To') === '+15005550001')
      return error(400, 21211, "The 'To' number +15005550001 is not a valid phone number.");
    if (f.get('To') === '+15005550500') return error(503, 20500, 'Service unavailable');
    const isSms = req.path.endsWith('/Messages.json');
    if (isSms && !f.get('Body')) return error(400, 21602, 'Message body is required.');
    if (isSms && !f.get('From') && !f.get('MessagingServiceSid')) {
      return error(400, 21603, "A 'From' phone number is required.");
    }
    if (!isSms && !f.get('From')) return error(400, 21213, 'Caller phone number is required');
    if (!isSms && !f.get('Twiml') && !f.get('Url')) return error(400, 21205, 'Url parameter is required.');
    const sid = `${isSms ? 'SM' : 'CA'}${'0f'.repeat(16)}`;
    return {
      status: 201,
      json: { sid, status: 'queued', to: f.get('To'), from: f.get('From'), account_sid: TWILIO_SID },
    };
  }
  return error(404, 20404, 'The requested resource was not found');
};
