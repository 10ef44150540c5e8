// Bootstraps what `npm start` and `npm test` need on a fresh clone with only Node.js and Go:
// pnpm (pinned by package.json's packageManager), the workspace dependencies, and the
// infrastructure binaries (nats-server, FerretDB) built once into a cache outside the work tree.
// Plain Node, no dependencies: it runs before anything is installed.
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cacheDir = process.env.AGENT_PLATFORM_CACHE ?? join(homedir(), '.cache', 'agent-platform');

const pnpmVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];

export function step(message) {
  console.log(`\x1b[36m▶\x1b[0m ${message}`);
}

export function fail(message) {
  console.error(`\x1b[31m✖\x1b[0m ${message}`);
  process.exit(1);
}

/** The pnpm binary: one on PATH of the pinned version, else one installed once into the cache. */
export function ensurePnpm() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  if (probe.status === 0 && probe.stdout.trim() === pnpmVersion) return 'pnpm';
  const prefix = join(cacheDir, `pnpm-${pnpmVersion}`);
  const bin = join(prefix, 'node_modules', '.bin', 'pnpm');
  if (!existsSync(bin)) {
    step(`installing pnpm ${pnpmVersion} into ${prefix} (first run only)`);
    mkdirSync(prefix, { recursive: true });
    const r = spawnSync(
      'npm',
      ['install', '--prefix', prefix, '--no-audit', '--no-fund', `pnpm@${pnpmVersion}`],
      {
        stdio: 'inherit',
      },
    );
    if (r.status !== 0) fail('could not install pnpm with npm: check that the npm registry is reachable');
  }
  return bin;
}

/** Runs `pnpm install --frozen-lockfile` when node_modules is missing or older than the lockfile. */
export function ensureDependencies(pnpm) {
  const marker = join(root, 'node_modules', '.install-stamp');
  const lock = join(root, 'pnpm-lock.yaml');
  const fresh = existsSync(marker) && existsSync(lock) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
  if (fresh) return;
  step('installing workspace dependencies with pnpm');
  const args = ['install', '--reporter=append-only'];
  if (existsSync(lock)) args.push('--frozen-lockfile');
  const r = spawnSync(pnpm, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0)
    fail('pnpm install failed: read the error above; a changed package.json needs `pnpm install`');
  writeFileSync(marker, new Date().toISOString());
}

/** Paths of nats-server and FerretDB, building them on the first run (progress on the terminal). */
export function ensureInfraBinaries({ nats = true, mongo = true } = {}) {
  const out = {};
  const run = (script) =>
    execFileSync('bash', [join(root, 'scripts', 'infra', script)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, AGENT_PLATFORM_CACHE: cacheDir },
    }).trim();
  try {
    if (nats) {
      step('nats-server: checking the cache');
      out.natsServer = run('ensure-nats-server.sh');
    }
    if (mongo) {
      step('FerretDB: checking the cache');
      out.ferretdb = run('ensure-ferretdb.sh');
    }
  } catch {
    fail(
      'could not provide the infrastructure binaries: read the lines above, or set NATS_URL and MONGO_URL',
    );
  }
  return out;
}

export function bootstrap(options) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) fail(`Node.js ${process.versions.node} is too old: install Node.js 20.19 or newer`);
  const pnpm = ensurePnpm();
  ensureDependencies(pnpm);
  const bins = ensureInfraBinaries(options);
  return { pnpm, ...bins };
}

/** Calls `onOrphaned` when the parent process goes away (e.g. npm was killed), so nothing lingers. */
export function exitWithParent(onOrphaned) {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      onOrphaned();
    }
  }, 1000);
  timer.unref();
}
