import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mongoose, { type Connection } from 'mongoose';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { defineDomainEvent, z } from '@platform/contracts';
import { createLogger, ensureEventStreams, Outbox, withIdempotency, startConsumer } from '@platform/kit';
import { startInfra, type TestInfra } from '../src/index.ts';

// The kit's storage and messaging helpers against real FerretDB and nats-server (they live here
// because the kit itself must not depend on the harness).
const thingHappened = defineDomainEvent('thing.happened', z.object({ n: z.number() }));
const logger = createLogger('kit-test', 'silent');

describe('kit storage and messaging helpers', () => {
  let infra: TestInfra;
  let db: Connection;
  let nc: NatsConnection;
  beforeAll(async () => {
    infra = await startInfra();
    db = await mongoose.createConnection(infra.mongo.url, { dbName: 'kit' }).asPromise();
    nc = await connect({ servers: infra.nats.url });
    await ensureEventStreams(nc);
  });
  afterAll(async () => {
    await nc?.close();
    await db?.close();
    await infra?.dispose();
  });

  it('withIdempotency replays the first result and refuses different input', async () => {
    let runs = 0;
    const run = async () => ({ id: `r${++runs}` });
    const opts = { orgId: 'o1', scope: 'execute', key: 'k1', request: { a: 1 } };
    const first = await withIdempotency(db, opts, run);
    const second = await withIdempotency(db, opts, run);
    expect(first).toEqual({ result: { id: 'r1' }, replayed: false });
    expect(second).toEqual({ result: { id: 'r1' }, replayed: true });
    await expect(withIdempotency(db, { ...opts, request: { a: 2 } }, run)).rejects.toMatchObject({
      status: 409,
    });
    // Another organization with the same key is independent.
    expect((await withIdempotency(db, { ...opts, orgId: 'o2' }, run)).result).toEqual({ id: 'r2' });
    // A failed run releases the key.
    await expect(
      withIdempotency(db, { ...opts, key: 'k2' }, async () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect((await withIdempotency(db, { ...opts, key: 'k2' }, run)).replayed).toBe(false);
  });

  it('outbox publishes at least once and the relay sends what NATS refused', async () => {
    const outbox = new Outbox(db, jetstream(nc), logger);
    const e1 = await outbox.publish(thingHappened, 'o1', { n: 1 });
    expect(e1).toMatchObject({ type: 'thing.happened', orgId: 'o1', data: { n: 1 } });
    await outbox.publish(thingHappened, 'o1', { n: 1 }, { id: e1.id }); // retried publish: stored once
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info('EVENTS')).state.messages).toBe(1);

    await infra.nats.stop();
    const outboxDown = new Outbox(db, jetstream(nc), logger);
    const e2 = await outboxDown.publish(thingHappened, 'o1', { n: 2 });
    await infra.nats.start();
    await new Promise((r) => setTimeout(r, 1500));
    expect(await outboxDown.relay(0)).toBeGreaterThanOrEqual(1);
    const received: string[] = [];
    const consumer = await startConsumer(
      nc,
      {
        stream: 'EVENTS',
        durable: 'kit-test',
        filterSubjects: ['evt.thing.>'],
        parse: (d) => thingHappened.payload.parse(d),
        handler: async (event) => {
          received.push(event.id);
        },
      },
      { logger },
    );
    for (let i = 0; i < 50 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    await consumer.stop();
    expect(received).toEqual([e1.id, e2.id]);
  });
});
