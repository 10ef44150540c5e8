// `npm test`: bootstraps pnpm, dependencies and the infrastructure binaries, then runs every test
// (vitest; test files start their own nats-server and FerretDB). Extra arguments go to vitest,
// e.g. `npm test -- services/auth`. Ends with a plain "N passed, N failed" line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrap, root, step } from './lib/bootstrap.mjs';

const started = Date.now();
const { pnpm, natsServer, ferretdb } = bootstrap();
const resultsFile = join(root, '.data', 'test-results.json');
mkdirSync(join(root, '.data'), { recursive: true });
step(`running the tests (${process.env.TEST_WORKERS ?? 2} workers)`);
const r = spawnSync(
  pnpm,
  [
    'exec',
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${resultsFile}`,
    ...process.argv.slice(2),
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NATS_SERVER_BIN: natsServer, FERRETDB_BIN: ferretdb },
  },
);
if (existsSync(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`\nnpm test took ${seconds} s`);
  console.log(
    `Tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests + results.numTodoTests} skipped`,
  );
}
process.exit(r.status ?? 1);
