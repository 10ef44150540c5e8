import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import { ConflictError, type Logger } from '@platform/kit';
import { lockModel } from '../models/lock.ts';

export interface Lock {
  readonly key: string;
  /** Keeps the lock while long work runs (renewed every third of its time to live). */
  keepAlive(): void;
  release(): Promise<void>;
}

/**
 * Takes the lock `key` for `ttlMs`, or answers undefined when someone alive holds it. Keys are
 * `session:<id>` and `agent:<id>` (ids are unique across organizations: random UUIDs and `agt_…`).
 */
export async function tryLock(
  db: Connection,
  key: string,
  ttlMs: number,
  logger: Logger,
  options: { onlyIfFree?: boolean } = {},
): Promise<Lock | undefined> {
  const locks = lockModel(db);
  const owner = randomUUID();
  for (let attempt = 0; attempt < 2; attempt++) {
    const now = new Date();
    try {
      await locks.collection.insertOne({
        _id: key as never,
        owner,
        expiresAt: new Date(now.getTime() + ttlMs),
        createdAt: now,
      });
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
      const held = await locks.findById(key).lean();
      if (held && held.expiresAt.getTime() > now.getTime()) return undefined;
      // Background work (`onlyIfFree`) does not jump in right after a holder let go: the next turn may.
      if (!held && options.onlyIfFree) return undefined;
      // Abandoned by a holder that died (or released meanwhile): remove it and try once more.
      if (held) await locks.deleteOne({ _id: key, owner: held.owner });
      continue;
    }
    let timer: NodeJS.Timeout | undefined;
    return {
      key,
      keepAlive() {
        timer ??= setInterval(
          () => {
            locks
              .updateOne({ _id: key, owner }, { $set: { expiresAt: new Date(Date.now() + ttlMs) } })
              .catch((e: Error) => logger.warn({ err: e.message, key }, 'could not renew a lock'));
          },
          Math.max(100, Math.floor(ttlMs / 3)),
        );
        timer.unref();
      },
      async release() {
        clearInterval(timer);
        await locks
          .deleteOne({ _id: key, owner })
          .catch((e: Error) => logger.warn({ err: e.message, key }, 'could not release a lock'));
      },
    };
  }
  return undefined;
}

/** Waits up to `waitMs` for the lock (short critical sections such as an agent update). */
export async function lockWithin(db: Connection, key: string, ttlMs: number, waitMs: number, logger: Logger) {
  const deadline = Date.now() + waitMs;
  for (let delay = 20; ; delay = Math.min(delay * 2, 200)) {
    const lock = await tryLock(db, key, ttlMs, logger);
    if (lock || Date.now() > deadline) return lock;
    await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
  }
}

/** Deletes locks that expired more than a day ago (their holders died). */
export async function purgeStaleLocks(db: Connection): Promise<number> {
  const { deletedCount } = await lockModel(db).deleteMany({
    expiresAt: { $lt: new Date(Date.now() - 86_400_000) },
  });
  return deletedCount;
}

/** Runs `work` holding the agent's lock (changes of one agent one at a time); 409 if it stays busy. */
export async function agentLock<T>(
  deps: { db: Connection; logger: Logger },
  agentId: string,
  work: () => Promise<T>,
): Promise<T> {
  const lock = await lockWithin(deps.db, `agent:${agentId}`, 30_000, 5_000, deps.logger);
  if (!lock) throw new ConflictError('The agent is being changed by someone else; retry');
  try {
    return await work();
  } finally {
    await lock.release();
  }
}
