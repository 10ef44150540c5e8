import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '@platform/testing';
import { newOrg, startHarness, type Harness } from './helpers.ts';

describe('integration catalog', () => {
  let h: Harness;
  const org = newOrg('catalog');
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.dispose();
  });

  it('lists every integration with JSON Schemas, paged with a total', async () => {
    const res = await h.api(org, 'GET', '/api/v1/integrations', { role: 'viewer' });
    expect(res.status).toBe(200);
    const ids = res.body.items.map((i: any) => i.id).sort();
    expect(ids).toEqual(['http', 'openai', 'slack', 'smtp', 'telegram', 'twilio', 'webhook', 'whatsapp']);
    expect(res.body).toMatchObject({ total: 8, page: 1, pageSize: 50, totalPages: 1, nextCursor: null });
    const slack = res.body.items.find((i: any) => i.id === 'slack');
    expect(slack).toMatchObject({
      name: 'Slack',
      category: 'messaging',
      authKind: 'webhook_url',
      authKinds: ['webhook_url', 'bearer'],
      testable: true,
    });
    expect(slack.credentialsSchema.oneOf).toHaveLength(2);
    const post = slack.actions.find((a: any) => a.id === 'chat.postMessage');
    expect(post.input).toMatchObject({ type: 'object', required: ['text'] });
    expect(post.output.properties).toHaveProperty('ts');
    for (const item of res.body.items) {
      expect(item.credentialsSchema).toBeTypeOf('object');
      expect(item.settingsSchema).toMatchObject({ type: 'object' });
      expect(item.actions.length).toBeGreaterThan(0);
    }
  });

  it('filters by category and search, and pages with page and cursor', async () => {
    const messaging = await h.api(org, 'GET', '/api/v1/integrations?category=messaging');
    expect(messaging.body.items.map((i: any) => i.id).sort()).toEqual(['slack', 'telegram', 'whatsapp']);
    expect(messaging.body.total).toBe(3);
    const search = await h.api(org, 'GET', '/api/v1/integrations?search=SMS');
    expect(search.body.items.map((i: any) => i.id)).toEqual(['twilio']);
    const byAction = await h.api(org, 'GET', '/api/v1/integrations?search=chat.completions');
    expect(byAction.body.items.map((i: any) => i.id)).toEqual(['openai']);
    expect((await h.api(org, 'GET', '/api/v1/integrations?search=')).body.total).toBe(8);
    const none = await h.api(org, 'GET', '/api/v1/integrations?search=nothing-like-this');
    expect(none.body).toMatchObject({ items: [], total: 0 });

    const page1 = await h.api(org, 'GET', '/api/v1/integrations?pageSize=3');
    const page2 = await h.api(org, 'GET', '/api/v1/integrations?pageSize=3&page=2');
    const viaCursor = await h.api(
      org,
      'GET',
      `/api/v1/integrations?pageSize=3&cursor=${encodeURIComponent(page1.body.nextCursor)}`,
    );
    expect(page1.body).toMatchObject({ total: 8, totalPages: 3 });
    expect(page2.body.items.map((i: any) => i.id)).toEqual(viaCursor.body.items.map((i: any) => i.id));
    expect(new Set([...page1.body.items, ...page2.body.items].map((i: any) => i.id)).size).toBe(6);
  });

  it('gets one integration, 404 for an unknown id', async () => {
    const res = await h.api(org, 'GET', '/api/v1/integrations/openai');
    expect(res.status).toBe(200);
    expect(res.body.actions.map((a: any) => a.id)).toEqual(['chat.completions', 'models.list']);
    expect(res.body.authKinds).toEqual(['bearer', 'none']);
    const missing = await h.api(org, 'GET', '/api/v1/integrations/nope');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
  });

  it('refuses bad query parameters and calls without the internal identity', async () => {
    const bad = await h.api(org, 'GET', '/api/v1/integrations?category=cooking&status[$ne]=x');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: any) => e.field)).toEqual(
      expect.arrayContaining(['category', 'status[$ne]']),
    );
    const anonymous = await http('GET', `${h.service.url}/api/v1/integrations`);
    expect(anonymous.status).toBe(401);
  });

  it('answers the catalog over NATS too', async () => {
    const reply = await h.rpc('svc.integration.get-integration', { id: 'twilio' });
    expect(reply.ok).toBe(true);
    expect(reply.data.actions.map((a: any) => a.id)).toEqual(['messages.create', 'calls.create']);
    const missing = await h.rpc('svc.integration.get-integration', { id: 'nope' });
    expect(missing).toMatchObject({ ok: false, error: { kind: 'not_found', retryable: false } });
  });
});
