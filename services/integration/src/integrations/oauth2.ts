import { createHash } from 'node:crypto';
import { callRejected, credentialsRejected, failureForStatus } from './errors.ts';
import { retryAfterSeconds, type ActionHttp } from './outbound.ts';

/**
 * OAuth 2.0 client credentials grant (RFC 6749 §4.4): the client authenticates with HTTP Basic
 * (§2.3.1, id and secret form-encoded first) and gets a bearer token, cached per connection and
 * credentials until shortly before it expires.
 */
export interface ClientCredentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  audience?: string;
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

const cache = new Map<string, CachedToken>();
const maxEntries = 10_000;

function cacheKey(connectionId: string, creds: ClientCredentials): string {
  return createHash('sha256').update(connectionId).update('\0').update(JSON.stringify(creds)).digest('hex');
}

export function forgetToken(connectionId: string, creds: ClientCredentials) {
  cache.delete(cacheKey(connectionId, creds));
}

export async function clientCredentialsToken(
  http: ActionHttp,
  connectionId: string,
  creds: ClientCredentials,
): Promise<string> {
  const key = cacheKey(connectionId, creds);
  const cached = cache.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.token;
  const who = 'The OAuth token endpoint';
  const form: Record<string, string> = { grant_type: 'client_credentials' };
  if (creds.scope) form.scope = creds.scope;
  if (creds.audience) form.audience = creds.audience;
  const basic = Buffer.from(
    `${encodeURIComponent(creds.clientId)}:${encodeURIComponent(creds.clientSecret)}`,
  ).toString('base64');
  const res = await http.send({
    method: 'POST',
    url: creds.tokenUrl,
    headers: { authorization: `Basic ${basic}` },
    form,
  });
  const body = (res.json ?? {}) as Record<string, unknown>;
  if (res.status < 200 || res.status >= 300) {
    const code = typeof body.error === 'string' ? body.error : undefined;
    if (code === 'invalid_client' || code === 'unauthorized_client' || res.status === 401) {
      throw credentialsRejected(who, code);
    }
    throw failureForStatus(who, res.status, code, retryAfterSeconds(res.headers));
  }
  if (typeof body.access_token !== 'string' || !body.access_token) {
    throw callRejected(who, res.status, 'the answer has no access_token');
  }
  const lifetime = typeof body.expires_in === 'number' ? body.expires_in : 300;
  if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
  // A token is reused until 30 s before it expires (or half its life when that is shorter).
  cache.set(key, {
    token: body.access_token,
    expiresAt: Date.now() + Math.max(0, lifetime - Math.min(30, lifetime / 2)) * 1000,
  });
  return body.access_token;
}
