// `node scripts/pnpm.mjs ARGS…` runs the pinned pnpm (installing it first when needed).
import { spawnSync } from 'node:child_process';
import { ensurePnpm, root } from './lib/bootstrap.mjs';

const r = spawnSync(ensurePnpm(), process.argv.slice(2), { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
