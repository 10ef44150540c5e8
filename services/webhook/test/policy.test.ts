import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { decide, parseRetryAfter } from '../src/domain/retry-policy.ts';
import { Lanes } from '../src/rpc/lanes.ts';
import { newSecret, sign, signatureHeader } from '../src/domain/signing.ts';

const settings = { schedule: [5_000, 300_000, 1_800_000], jitter: 0.1, maxRetryAfterMs: 3_600_000 };

describe('retry policy', () => {
  it('treats 2xx as success and 410 as gone', () => {
    expect(decide(settings, { statusCode: 200 }, 0)).toEqual({ kind: 'succeeded' });
    expect(decide(settings, { statusCode: 299 }, 2)).toEqual({ kind: 'succeeded' });
    expect(decide(settings, { statusCode: 410 }, 0)).toEqual({ kind: 'gone' });
  });

  it('follows the schedule with jitter, then gives up', () => {
    expect(decide(settings, { statusCode: 500 }, 0, () => 0.5)).toEqual({ kind: 'retry', delayMs: 5_000 });
    expect(decide(settings, { statusCode: null }, 1, () => 0)).toEqual({ kind: 'retry', delayMs: 270_000 });
    expect(decide(settings, { statusCode: 301 }, 2, () => 1)).toEqual({ kind: 'retry', delayMs: 1_980_000 });
    expect(decide(settings, { statusCode: 500 }, 3)).toEqual({ kind: 'exhausted' });
  });

  it('honours Retry-After on 429 and 503 only, capped', () => {
    expect(decide(settings, { statusCode: 429, retryAfter: '120' }, 0)).toEqual({
      kind: 'retry',
      delayMs: 120_000,
    });
    expect(decide(settings, { statusCode: 503, retryAfter: '999999' }, 0)).toEqual({
      kind: 'retry',
      delayMs: 3_600_000,
    });
    expect(decide(settings, { statusCode: 500, retryAfter: '120' }, 0, () => 0.5)).toEqual({
      kind: 'retry',
      delayMs: 5_000,
    });
    expect(decide(settings, { statusCode: 429, retryAfter: '1' }, 3)).toEqual({ kind: 'exhausted' });
    expect(parseRetryAfter(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(55_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('Standard Webhooks signatures', () => {
  it('are accepted by the reference implementation, one per secret', () => {
    const [a, b] = [newSecret(), newSecret()];
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    const ts = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({ id: 'evt_1', type: 'x.y', data: { n: 1 } });
    expect(sign(a, 'evt_1', ts, body)).toBe(new Webhook(a).sign('evt_1', new Date(ts * 1000), body));
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signatureHeader([a, b], 'evt_1', ts, body),
    };
    expect(new Webhook(a).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(b).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(`${body} `, headers)).toThrow();
  });
});

describe('endpoint lanes', () => {
  it('caps each lane and the total, serves lanes in turn, and evicts from the longest line', async () => {
    const started: string[] = [];
    const release: Array<() => void> = [];
    const lanes = new Lanes<string>(2, 3, (_lane, item) => {
      started.push(item);
      return new Promise<void>((resolve) => release.push(resolve));
    });
    for (let i = 0; i < 5; i++) lanes.add('dead', `dead-${i}`);
    lanes.add('ok', 'ok-0');
    lanes.add('ok', 'ok-1');
    // The dead lane holds 2 slots at most; the third slot goes to the other lane at once.
    expect(started).toEqual(['dead-0', 'dead-1', 'ok-0']);
    expect(lanes.held).toBe(7);
    expect(lanes.evictFromLongest(2)).toEqual(['dead-3', 'dead-4']);
    release[2]!(); // ok-0 ends: ok-1 takes its slot, not the waiting dead-2
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual(['dead-0', 'dead-1', 'ok-0', 'ok-1']);
    release[0]!();
    await new Promise((r) => setTimeout(r, 0));
    expect(started.at(-1)).toBe('dead-2');
    expect(lanes.drainWaiting()).toEqual([]);
  });
});
