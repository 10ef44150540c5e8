// Where FerretDB's own CPU time goes: its pprof handler (enabled by FERRETDB_DEBUG_ADDR, see
// libs/testing's startMongo) records a CPU profile over a window, and `go tool pprof` sums it by
// wire command (insert, update, find, …) and by the SQLite work below them.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@platform/testing';

/** Call before the stack starts: FerretDB then serves pprof on a free local port. */
export async function enableFerretDbProfile(): Promise<string> {
  const addr = `127.0.0.1:${await freePort()}`;
  process.env.FERRETDB_DEBUG_ADDR = addr;
  return addr;
}

/** Rows of interest in FerretDB's cumulative profile, and what to call them. */
const rows: Array<[RegExp, string]> = [
  [/handler\.\(\*Handler\)\.MsgInsert$/, 'insert command'],
  [/handler\.\(\*Handler\)\.MsgUpdate$/, 'update command'],
  [/handler\.\(\*Handler\)\.MsgFind$/, 'find command'],
  [/handler\.\(\*Handler\)\.MsgFindAndModify$/, 'findAndModify command'],
  [/handler\.\(\*Handler\)\.MsgDelete$/, 'delete command'],
  [/fsql\.\(\*Tx\)\.Commit$/, '  of which SQLite commits (WAL write + fsync)'],
  [/sqlite\/lib\._sqlite3Prepare$/, '  of which SQLite statement preparation'],
  [/sjson\.Unmarshal$/, '  of which document decoding (JSON → BSON)'],
  [/clientconn\.\(\*conn\)\.run$/, 'every wire command (total, with reading and writing the socket)'],
  [/runtime\.gcBgMarkWorker$/, 'Go garbage collector'],
];

/** Records `seconds` of FerretDB CPU profile and returns a printable breakdown (or why not). */
export async function profileFerretDb(addr: string, seconds: number): Promise<string> {
  const bin = process.env.FERRETDB_BIN;
  try {
    const res = await fetch(`http://${addr}/debug/pprof/profile?seconds=${seconds}`);
    if (!res.ok) return `FerretDB profile: HTTP ${res.status}`;
    const file = join(tmpdir(), `ferretdb-${process.pid}.pprof`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const top = execFileSync('go', ['tool', 'pprof', '-top', '-cum', '-nodecount=400', bin ?? '', file], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const total = /Total samples = ([\d.]+)(m?s)/.exec(top);
    const totalS = total ? Number(total[1]) / (total[2] === 'ms' ? 1000 : 1) : NaN;
    const lines = [
      `FerretDB CPU over ${seconds} s of the run: ${totalS.toFixed(2)} s by what it was doing (cumulative seconds, share of that total):`,
    ];
    for (const [re, label] of rows) {
      const line = top.split('\n').find((l) => re.test(l.trim()));
      const [, , , cum, cumShare] = line?.trim().split(/\s+/) ?? [];
      if (cum && cumShare) lines.push(`  ${cum.padStart(6)} ${cumShare.padStart(7)}  ${label}`);
    }
    return lines.join('\n');
  } catch (err) {
    return `FerretDB profile not taken (${(err as Error).message.split('\n')[0]}); it needs Go's pprof (go tool pprof)`;
  }
}
