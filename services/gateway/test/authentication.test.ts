import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { Connection } from 'mongoose';
import { connectMongo, createLogger, signInternalToken } from '@platform/kit';
import { http, startStack, TEST_INTERNAL_SECRET, uniqueEmail, type TestStack } from '@platform/testing';
import { signingKeyModel } from '../../auth/src/models/signing-key.ts';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/**
 * RFC 8725 checks at the gateway. The test plants a signing key of its own in the auth database (as a
 * recently retired key, so it is in the JWKS): it can then craft tokens that are valid in every
 * respect but one, and show that exactly that one defect is refused.
 */
describe('gateway authentication', () => {
  let stack: TestStack;
  let db: Connection;
  let kid: string;
  let privateKey: CryptoKey;
  let publicJwk: JWK;
  let org: { id: string; userId: string };

  beforeAll(async () => {
    stack = await startStack(['auth']);
    db = await connectMongo(stack.mongo.url, 'auth', createLogger('test', 'silent'));
    const pair = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    privateKey = pair.privateKey;
    kid = `k_test_${randomUUID().slice(0, 8)}`;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'EdDSA', use: 'sig' };
    await signingKeyModel(db).create({
      _id: kid,
      status: 'retired',
      retiredAt: new Date(),
      publicJwk,
      privateJwkSealed: 'not-used',
    });
    const signup = await http('POST', `${stack.url}/api/v1/auth/signup`, {
      body: { organizationName: 'Crafted', email: uniqueEmail(), password: 'correct horse battery' },
    });
    org = { id: signup.body.organization.id, userId: signup.body.user.id };
    // The gateway fetches the JWKS again for an unknown kid at most once a second: if it fetched
    // just before the key was planted, the first crafted token is refused. Wait until it is known.
    const deadline = Date.now() + 5_000;
    while ((await me(await craft())).status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
    }
  });
  afterAll(async () => {
    await db?.close();
    await stack?.dispose();
  });

  const now = () => Math.floor(Date.now() / 1000);
  const claims = (over: Record<string, unknown> = {}) => ({
    iss: 'https://auth.platform.local',
    aud: 'platform-api',
    sub: org.userId,
    org: org.id,
    role: 'owner',
    plan: 'pro',
    sid: randomUUID(),
    jti: randomUUID(),
    iat: now(),
    nbf: now(),
    exp: now() + 300,
    ...over,
  });
  const craft = (over: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
    new SignJWT(claims(over))
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'at+jwt', ...header } as never)
      .sign(privateKey);
  const me = (token?: string, headers: Record<string, string> = {}) =>
    http('GET', `${stack.url}/api/v1/auth/me`, { token, headers });

  it('accepts a well-formed token signed by a key of the JWKS (control)', async () => {
    const res = await me(await craft());
    expect(res.status).toBe(200);
    expect(res.body.organization.id).toBe(org.id);
  });

  it('answers 401 with WWW-Authenticate and problem+json without credentials or with a malformed header', async () => {
    const none = await me();
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm="api"/);
    expect(none.headers.get('content-type')).toContain('application/problem+json');
    const basic = await me(undefined, { authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await me('not-a-jwt')).status).toBe(401);
    expect((await me('a.b.c')).status).toBe(401);
  });

  it('rejects forged tokens: a changed payload, or a signature by a key not in the JWKS', async () => {
    const [h, , s] = (await craft()).split('.');
    expect((await me(`${h}.${b64(claims({ org: 'org_other' }))}.${s}`)).status).toBe(401);
    const stranger = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const foreign = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'at+jwt' })
      .sign(stranger.privateKey);
    expect((await me(foreign)).status).toBe(401);
    const unknownKid = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'EdDSA', kid: 'k_nobody', typ: 'at+jwt' })
      .sign(stranger.privateKey);
    expect((await me(unknownKid)).status).toBe(401);
  });

  it('rejects expired tokens and tokens not valid yet, beyond the small clock skew', async () => {
    expect((await me(await craft({ exp: now() - 60, iat: now() - 400, nbf: now() - 400 }))).status).toBe(401);
    expect((await me(await craft({ nbf: now() + 120 }))).status).toBe(401);
    expect((await me(await craft({ exp: now() - 3 }))).status).toBe(200);
  });

  it('rejects alg none, and HS256 signed with the public key (algorithm confusion)', async () => {
    const noneToken = `${b64({ alg: 'none', kid, typ: 'at+jwt' })}.${b64(claims())}.`;
    expect((await me(noneToken)).status).toBe(401);
    const noneSigned = `${b64({ alg: 'none', kid, typ: 'at+jwt' })}.${b64(claims())}.${'A'.repeat(43)}`;
    expect((await me(noneSigned)).status).toBe(401);
    const input = `${b64({ alg: 'HS256', kid, typ: 'at+jwt' })}.${b64(claims())}`;
    for (const secret of [
      Buffer.from(publicJwk.x!, 'base64url'),
      Buffer.from(publicJwk.x!),
      Buffer.from(JSON.stringify(publicJwk)),
    ]) {
      const sig = createHmac('sha256', secret).update(input).digest('base64url');
      expect((await me(`${input}.${sig}`)).status).toBe(401);
    }
    // Nor is the internal token (HS256 under the shared secret) a bearer token.
    const internal = await signInternalToken(TEST_INTERNAL_SECRET, {
      orgId: org.id,
      role: 'owner',
      plan: 'pro',
    });
    expect((await me(internal)).status).toBe(401);
  });

  it('rejects a wrong audience, a wrong issuer, a wrong or missing typ and missing claims', async () => {
    expect((await me(await craft({ aud: 'another-api' }))).status).toBe(401);
    expect((await me(await craft({ iss: 'https://evil.example' }))).status).toBe(401);
    expect((await me(await craft({}, { typ: 'JWT' }))).status).toBe(401);
    expect((await me(await craft({}, { typ: undefined }))).status).toBe(401);
    expect((await me(await craft({ sid: undefined }))).status).toBe(401);
    expect((await me(await craft({ role: 'superuser' }))).status).toBe(401);
    expect((await me(await craft({ exp: undefined }))).status).toBe(401);
  });

  it('needs no token on public routes, health, docs and inbound webhooks', async () => {
    expect((await http('GET', `${stack.url}/healthz`)).status).toBe(200);
    expect((await http('GET', `${stack.url}/docs`)).status).toBe(200);
    expect((await http('GET', `${stack.url}/api/v1/openapi.json`)).status).toBe(200);
    expect((await http('GET', `${stack.url}/api/v1/.well-known/jwks.json`)).status).toBe(200);
    expect((await http('POST', `${stack.url}/api/v1/auth/login`, { body: {} })).status).toBe(400);
    expect((await http('POST', `${stack.url}/api/v1/auth/refresh`, { body: {} })).status).toBe(400);
    // No workflow service in this stack: the gateway answers 404, not 401.
    expect((await http('POST', `${stack.url}/api/v1/hooks/wh_1`, { body: {} })).status).toBe(404);
    expect((await http('GET', `${stack.url}/api/v1/members`)).status).toBe(401);
    expect((await http('GET', `${stack.url}/sessions`)).status).toBe(401);
  });

  it('drops an internal token sent by a client and signs its own', async () => {
    const forged = await signInternalToken(TEST_INTERNAL_SECRET, {
      orgId: 'org_victim',
      role: 'owner',
      plan: 'pro',
    });
    expect((await me(undefined, { 'x-internal-token': forged })).status).toBe(401);
    const res = await me(await craft(), { 'x-internal-token': forged });
    expect(res.status).toBe(200);
    expect(res.body.organization.id).toBe(org.id);
  });

  it('lets viewers read but not write, at the gateway, on every service', async () => {
    const viewer = await craft({ role: 'viewer' });
    expect((await me(viewer)).status).toBe(200);
    const write = await http('POST', `${stack.url}/api/v1/workflows`, { token: viewer, body: {} });
    expect(write.status).toBe(403);
    expect(write.body.detail).toMatch(/read/);
    expect((await http('DELETE', `${stack.url}/api/v1/api-keys/key_1`, { token: viewer })).status).toBe(403);
  });
});
