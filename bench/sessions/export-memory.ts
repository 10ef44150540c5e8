/**
 * Shows that the export streams in constant memory: seeds N sessions into a FerretDB it starts (or
 * MONGO_URL), runs the export's generator in this process and reads the heap after a forced GC every
 * 20 chunks. Usage: N=50000 node --expose-gc --import tsx bench/sessions/export-memory.ts
 */
import mongoose from 'mongoose';
import { createLogger } from '@platform/kit';
import { startMongo, type InfraServer } from '@platform/testing';
import { openExport } from '../../services/session/src/domain/export-sessions.ts';
import { KeyedLock } from '../../services/session/src/domain/keyed-lock.ts';
import { prng, seed } from './seed.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const n = Number(process.env.N ?? 50_000);
let own: InfraServer | undefined;
const url = process.env.MONGO_URL ?? (own = await startMongo()).url;
const db = await mongoose.createConnection(url, { dbName: `bench_export_memory_${Date.now()}` }).asPromise();
try {
  await seed(db, 'org_m', n, prng(7), Date.now(), () => undefined);
  const deps = {
    db,
    config: { EXPORT_BATCH_SIZE: 1000 },
    logger: createLogger('bench', 'silent'),
    locks: new KeyedLock(),
    now: () => new Date(),
  } as never;
  gc();
  const base = process.memoryUsage().heapUsed;
  let rows = -1; // the header line
  let maxHeap = base;
  let chunks = 0;
  const t0 = performance.now();
  for await (const chunk of await openExport(deps, 'org_m', { format: 'csv' } as never)) {
    rows += chunk.split('\r\n').length - 1;
    if (++chunks % 20 === 0) {
      gc();
      maxHeap = Math.max(maxHeap, process.memoryUsage().heapUsed);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const mb = (b: number) => Math.round((b / 1048576) * 10) / 10;
  console.log(
    `export of ${rows} sessions in ${seconds.toFixed(1)} s (${Math.round(rows / seconds)}/s); heap after GC: ` +
      `${mb(base)} MB before, at most ${mb(maxHeap)} MB during (${chunks} chunks of ~64 KB)`,
  );
} finally {
  await db.db!.dropDatabase().catch(() => undefined);
  await db.close();
  await own?.dispose();
}
