import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import mongoose, { type Connection as Db } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY_RING } from '@platform/testing';
import { TELEGRAM_TOKEN, TWILIO_SID, TWILIO_TOKEN } from './fakes/messaging.ts';
import { newOrg, startHarness, type Harness } from './helpers.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const NEW_KEY = `new:${Buffer.alloc(32, 11).toString('base64')}`;
const NEWER_KEY = `newer:${Buffer.alloc(32, 13).toString('base64')}`;

/** Runs the rotation command as an operator would, against this file's database. */
function rotate(keys: string, mongoUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'services/integration/src/cli/rotate-credentials-key.ts'],
      {
        cwd: repoRoot,
        env: { ...process.env, MONGO_URL: mongoUrl, MONGO_DB: 'integration', CREDENTIALS_KEYS: keys },
      },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('credentials key rotation', () => {
  let h: Harness;
  let raw: Db;
  const orgA = newOrg('a');
  const orgB = newOrg('b');
  const ids: string[] = [];
  let revokedId: string;
  const docs = () => raw.collection('connections').find({}).toArray();
  const sendMessage = (connectionId: string, orgId = orgA) =>
    h.rpc('svc.integration.run-action', {
      orgId,
      connectionId,
      action: 'sendMessage',
      input: { chatId: 1, text: 'hi' },
    });

  beforeAll(async () => {
    h = await startHarness({ CREDENTIALS_KEYS: TEST_KEY_RING });
    raw = await mongoose.createConnection(h.infra.mongo.url, { dbName: 'integration' }).asPromise();
    for (const [org, name] of [
      [orgA, 'A bot'],
      [orgB, 'B bot'],
    ] as const) {
      const res = await h.api(org, 'POST', '/api/v1/connections', {
        body: { integrationId: 'telegram', name, credentials: { botToken: TELEGRAM_TOKEN } },
      });
      ids.push(res.body.id);
    }
    const twilio = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: {
        integrationId: 'twilio',
        name: 'Phone',
        credentials: { accountSid: TWILIO_SID, authToken: TWILIO_TOKEN },
      },
    });
    ids.push(twilio.body.id);
    const revoked = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: { integrationId: 'telegram', name: 'Old bot', credentials: { botToken: TELEGRAM_TOKEN } },
    });
    revokedId = revoked.body.id;
    await h.api(orgA, 'PATCH', `/api/v1/connections/${revokedId}`, { body: { status: 'revoked' } });
  });
  afterAll(async () => {
    await raw?.close();
    await h?.dispose();
  });

  it('re-encrypts every connection under the new primary key, and is safe to run again', async () => {
    expect((await docs()).filter((d) => d.keyId === 'test1')).toHaveLength(3);
    const first = await rotate(`${NEW_KEY},${TEST_KEY_RING}`, h.infra.mongo.url);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({ primaryKeyId: 'new', rotated: 3, failed: [] });
    for (const doc of await docs()) {
      if (doc._id === (revokedId as never)) {
        expect(doc).toMatchObject({ keyId: null, credentialsSealed: null });
      } else {
        expect(doc.keyId).toBe('new');
        expect(doc.credentialsSealed).toMatch(/^v1\.new\./);
        expect(JSON.stringify(doc)).not.toContain(TELEGRAM_TOKEN);
      }
    }
    const again = await rotate(`${NEW_KEY},${TEST_KEY_RING}`, h.infra.mongo.url);
    expect(JSON.parse(again.stdout)).toMatchObject({ rotated: 0, failed: [] });
  });

  it('the service with only the new key uses every connection; with only the old one it cannot', async () => {
    await h.restart({ CREDENTIALS_KEYS: NEW_KEY });
    expect(await sendMessage(ids[0]!)).toMatchObject({ ok: true });
    expect(await sendMessage(ids[1]!, orgB)).toMatchObject({ ok: true });
    const test = await h.api(orgA, 'POST', `/api/v1/connections/${ids[2]}/test`);
    expect(test.body).toMatchObject({ ok: true, verified: true });
    // New connections are written under the primary key.
    const created = await h.api(orgA, 'POST', '/api/v1/connections', {
      body: { integrationId: 'telegram', name: 'Fresh bot', credentials: { botToken: TELEGRAM_TOKEN } },
    });
    const fresh = await raw.collection('connections').findOne({ _id: created.body.id });
    expect(fresh!.keyId).toBe('new');

    await h.restart({ CREDENTIALS_KEYS: TEST_KEY_RING });
    const unreadable = await sendMessage(ids[0]!);
    expect(unreadable).toMatchObject({ ok: false, error: { kind: 'internal', retryable: false } });
    expect(unreadable.error.message).toContain('cannot be decrypted');
    expect(unreadable.error.message).not.toContain(TELEGRAM_TOKEN);
  });

  it('reports, and exits 1, when a connection is under a key the ring lacks', async () => {
    const result = await rotate(NEWER_KEY, h.infra.mongo.url);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.rotated).toBe(0);
    expect(report.failed.map((f: any) => f.keyId)).toEqual(['new', 'new', 'new', 'new']);
  });
});
