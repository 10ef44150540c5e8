import { createHash } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import type { Request } from 'express';
import { ConflictError, ValidationError } from './errors.ts';
import { modelOn } from './mongo.ts';

/**
 * `Idempotency-Key` on POSTs that create or trigger: the same key (per organization and operation)
 * within 24 h answers the first result again; the same key with different input is a 409. Records
 * expire by their `expiresAt` field (checked on read; FerretDB has no TTL indexes) and a cleanup
 * deletes old ones. A record left `pending` by a crashed process is taken over after `pendingTimeoutMs`.
 */
interface IdempotencyDoc {
  _id: string;
  orgId: string;
  scope: string;
  requestHash: string;
  status: 'pending' | 'done';
  response?: string;
  createdAt: Date;
  expiresAt: Date;
}

const schema = new Schema<IdempotencyDoc>(
  {
    _id: String,
    orgId: { type: String, required: true },
    scope: { type: String, required: true },
    requestHash: { type: String, required: true },
    status: { type: String, required: true },
    response: String,
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// The cleanup deletes expired records.
schema.index({ expiresAt: 1 });

const model = (db: Connection) => modelOn<IdempotencyDoc>(db, 'IdempotencyKey', schema, 'idempotency_keys');

const keyPattern = /^[\x21-\x7e]{1,255}$/;

/** The validated `Idempotency-Key` header, if any. */
export function idempotencyKeyOf(req: Request): string | undefined {
  const key = req.header('idempotency-key');
  if (key === undefined) return undefined;
  if (!keyPattern.test(key)) {
    throw new ValidationError([
      { field: 'Idempotency-Key', message: 'must be 1-255 visible ASCII characters', location: 'header' },
    ]);
  }
  return key;
}

export interface IdempotencyOptions {
  orgId: string;
  scope: string;
  key: string | undefined;
  /** What must be equal for a replay (the parsed body, path params…). */
  request: unknown;
  ttlMs?: number;
  pendingTimeoutMs?: number;
}

export async function withIdempotency<T>(
  db: Connection,
  options: IdempotencyOptions,
  run: () => Promise<T>,
): Promise<{ result: T; replayed: boolean }> {
  if (!options.key) return { result: await run(), replayed: false };
  const id = `${options.orgId}:${options.scope}:${options.key}`;
  const requestHash = createHash('sha256')
    .update(JSON.stringify(options.request ?? null))
    .digest('hex');
  const now = new Date();
  const records = model(db);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await records.create({
        _id: id,
        orgId: options.orgId,
        scope: options.scope,
        requestHash,
        status: 'pending',
        createdAt: now,
        expiresAt: new Date(now.getTime() + (options.ttlMs ?? 86_400_000)),
      });
      break;
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      const existing = await records.findOne({ _id: id, orgId: options.orgId }).lean();
      if (!existing) continue;
      const stalePending =
        existing.status === 'pending' &&
        now.getTime() - existing.createdAt.getTime() > (options.pendingTimeoutMs ?? 60_000);
      if (existing.expiresAt < now || stalePending) {
        await records.deleteOne({ _id: id, orgId: options.orgId, createdAt: existing.createdAt });
        continue;
      }
      if (existing.requestHash !== requestHash) {
        throw new ConflictError('This Idempotency-Key was used with a different request');
      }
      if (existing.status === 'pending')
        throw new ConflictError('A request with this Idempotency-Key is still in progress');
      return { result: JSON.parse(existing.response ?? 'null') as T, replayed: true };
    }
  }
  try {
    const result = await run();
    await records.updateOne(
      { _id: id, orgId: options.orgId },
      { status: 'done', response: JSON.stringify(result) },
    );
    return { result, replayed: false };
  } catch (err) {
    await records.deleteOne({ _id: id, orgId: options.orgId }).catch(() => undefined);
    throw err;
  }
}

/** Deletes expired idempotency records (run periodically). */
export async function purgeExpiredIdempotencyKeys(db: Connection): Promise<number> {
  const { deletedCount } = await model(db).deleteMany({ expiresAt: { $lt: new Date() } });
  return deletedCount;
}
