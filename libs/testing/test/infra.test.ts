import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import mongoose from 'mongoose';
import { startMongo, startNats, type InfraServer } from '../src/index.ts';

describe('test infrastructure', () => {
  const started: InfraServer[] = [];
  afterAll(async () => {
    for (const s of started) await s.dispose();
  });

  it('starts a nats-server with JetStream and removes its folder on dispose', async () => {
    const nats = await startNats();
    const nc = await connect({ servers: nats.url });
    const jsm = await jetstreamManager(nc);
    const info = await jsm.getAccountInfo();
    expect(info.limits).toBeDefined();
    await nc.close();
    await nats.dispose();
    expect(existsSync(nats.dir)).toBe(false);
  });

  it('starts FerretDB that mongoose can write to and read from', async () => {
    const mongo = await startMongo();
    started.push(mongo);
    const conn = await mongoose.createConnection(mongo.url, { dbName: 'infra_test' }).asPromise();
    const Thing = conn.model('Thing', new mongoose.Schema({ orgId: String, n: Number }));
    await Thing.create({ orgId: 'o1', n: 1 });
    expect(await Thing.countDocuments({ orgId: 'o1' })).toBe(1);
    await conn.close();
  });

  it('restarts a stopped server on the same port with its data', async () => {
    const nats = await startNats();
    started.push(nats);
    await nats.stop();
    await nats.start();
    const nc = await connect({ servers: nats.url });
    await nc.flush();
    await nc.close();
  });
});
