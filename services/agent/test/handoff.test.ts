import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startStack, type TestStack } from '@platform/testing';
import { eventually, signup } from './support.ts';

/** A local-provider agent that hands billing questions to `billingId`. */
function frontDesk(billingId: string, extra: Record<string, unknown> = {}) {
  return {
    name: 'Front desk',
    provider: {
      kind: 'local',
      rules: [
        {
          name: 'billing',
          match: { any: ['invoice', 'billing'] },
          tool: { name: 'to_billing', arguments: { reason: 'billing question: {{message}}' } },
          reply: 'Passing you to {{toolOutput.agentName}}.',
        },
        { match: { any: ['hello'] }, reply: 'Front desk here.' },
      ],
      fallback: 'Front desk does not know.',
    },
    tools: [{ type: 'handoff', name: 'to_billing', agentId: billingId, description: 'Billing questions' }],
    ...extra,
  };
}

const billingAgent = {
  name: 'Billing',
  provider: {
    kind: 'local',
    rules: [{ match: { any: ['invoice'] }, reply: 'Billing here: your invoice is paid. (turn {{turn}})' }],
    fallback: 'Billing only talks about invoices.',
  },
};

/**
 * Handoffs with the local provider through the gateway, auth, session and agent services: the
 * `agent_handoff` event in the session, the target answering the next turns, references checked at save.
 */
describe('agent handoff', () => {
  let stack: TestStack;
  let a: { token: string; orgId: string };
  let b: { token: string; orgId: string };

  beforeAll(async () => {
    stack = await startStack(['auth', 'session', 'agent']);
    [a, b] = await Promise.all([signup(stack.url, 'Handoff A'), signup(stack.url, 'Handoff B')]);
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  const gw = (method: string, path: string, body?: unknown, token = a.token) =>
    http(method, `${stack.url}/api/v1${path}`, { token, body });
  const create = async (body: unknown, token = a.token) => {
    const res = await gw('POST', '/agents', body, token);
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const sessionWhen = (id: string, check: (s: any) => boolean) =>
    eventually(10_000, async () => {
      const res = await gw('GET', `/sessions/${id}`);
      return res.status === 200 && check(res.body) ? res.body : undefined;
    });

  it('hands the conversation over: event recorded, the target answers the next turns', async () => {
    const billing = await create(billingAgent);
    const front = await create(frontDesk(billing));
    const invoke = (agentId: string, body: Record<string, unknown>) =>
      gw('POST', `/agents/${agentId}/invoke`, body);

    const first = await invoke(front, { message: 'hello', channel: 'Web' });
    expect(first.body).toMatchObject({ agentId: front, agentVersion: 1, reply: 'Front desk here.' });
    const sessionId = first.body.sessionId;

    const handoff = await invoke(front, { message: 'a billing question', sessionId });
    expect(handoff.status).toBe(200);
    expect(handoff.body).toMatchObject({
      agentId: billing,
      agentVersion: 1,
      turn: 2,
      reply: 'Passing you to Billing.',
      sessionStatus: 'Active',
    });
    expect(handoff.body.toolCalls).toEqual([
      expect.objectContaining({
        name: 'to_billing',
        type: 'handoff',
        arguments: { reason: 'billing question: a billing question' },
        output: expect.objectContaining({ handedOff: true, agentId: billing, agentName: 'Billing' }),
      }),
    ]);

    // The next turn is the target's, addressed to the starting agent or to the target.
    const third = await invoke(front, { message: 'my invoice?', sessionId });
    expect(third.body).toMatchObject({
      agentId: billing,
      turn: 3,
      reply: 'Billing here: your invoice is paid. (turn 3)',
    });
    const fourth = await invoke(billing, { message: 'hello', sessionId });
    expect(fourth.body).toMatchObject({
      agentId: billing,
      turn: 4,
      reply: 'Billing only talks about invoices.',
    });
    // Any other agent of the organization still cannot reach it.
    const other = await create({ name: 'Other' });
    expect((await invoke(other, { message: 'hi', sessionId })).status).toBe(404);

    const session = await sessionWhen(sessionId, (s) => s.messageCount === 8);
    expect(session).toMatchObject({ agentId: front, agentVersion: '1' }); // the starting agent
    const handoffs = session.systemEvents.filter((e: any) => e.type === 'agent_handoff');
    expect(handoffs).toHaveLength(1);
    expect(handoffs[0].details).toMatchObject({
      fromAgentId: front,
      fromVersion: 1,
      toAgentId: billing,
      toVersion: 1,
      reason: 'billing question: a billing question',
    });
    expect(session.messages.map((m: any) => m.content)).toContain('Passing you to Billing.');

    // Ending it through the target works too.
    const end = await gw('POST', `/agents/${billing}/sessions/${sessionId}/end`, { status: 'completed' });
    expect(end.status).toBe(200);
  });

  it('refuses handoffs to archived, unknown, foreign or own agents when saving', async () => {
    const archived = await create(billingAgent);
    expect((await gw('POST', `/agents/${archived}/archive`)).status).toBe(200);
    const foreign = await create(billingAgent, b.token);
    for (const target of [archived, foreign, 'agt_missing']) {
      const res = await gw('POST', '/agents', frontDesk(target));
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: any) => e.field)).toEqual(['tools.0.agentId']);
    }
    const billing = await create(billingAgent);
    const front = await create(frontDesk(billing));
    const self = await gw('PUT', `/agents/${front}`, frontDesk(front));
    expect(self.status).toBe(400);
    expect(self.body.errors).toEqual([expect.objectContaining({ field: 'tools.0.agentId' })]);
    const toArchived = await gw('PUT', `/agents/${front}`, frontDesk(archived));
    expect(toArchived.body.errors).toEqual([
      expect.objectContaining({ field: 'tools.0.agentId', message: 'is an archived agent' }),
    ]);
  });

  it('keeps the conversation when the target was archived after saving (a tool error)', async () => {
    const billing = await create(billingAgent);
    const front = await create(frontDesk(billing));
    expect((await gw('POST', `/agents/${billing}/archive`)).status).toBe(200);
    const res = await gw('POST', `/agents/${front}/invoke`, { message: 'invoice', channel: 'Web' });
    expect(res.body).toMatchObject({ agentId: front, reply: 'Passing you to .' });
    expect(res.body.toolCalls[0].error).toContain('archived');
    const next = await gw('POST', `/agents/${front}/invoke`, {
      message: 'hello',
      sessionId: res.body.sessionId,
    });
    expect(next.body).toMatchObject({ agentId: front, reply: 'Front desk here.' });
    const session = await sessionWhen(res.body.sessionId, (s) => s.messageCount === 4);
    const types = session.systemEvents.map((e: any) => e.type);
    expect(types).not.toContain('agent_handoff');
    expect(types).toContain('error');
  });
});
