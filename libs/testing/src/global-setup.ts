import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs once before the test files: makes sure the infrastructure binaries exist (building them on
 * the very first run) and exports their paths, so test workers never build concurrently.
 */
export default function setup() {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  for (const [envVar, script] of [
    ['NATS_SERVER_BIN', 'ensure-nats-server.sh'],
    ['FERRETDB_BIN', 'ensure-ferretdb.sh'],
  ] as const) {
    if (process.env[envVar]) continue;
    process.env[envVar] = execFileSync('bash', [join(root, 'scripts', 'infra', script)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  }
}
