// `npm start`: bootstraps what is missing, then runs the whole platform locally (nats-server,
// FerretDB, every service, the gateway on http://localhost:8080) with data under .data/.
// Ctrl-C stops everything. NATS_URL / MONGO_URL point at existing servers instead.
import { spawn } from 'node:child_process';
import { bootstrap, exitWithParent, root } from './lib/bootstrap.mjs';

const bins = bootstrap({ nats: !process.env.NATS_URL, mongo: !process.env.MONGO_URL });
const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev/platform.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NATS_SERVER_BIN: bins.natsServer ?? '', FERRETDB_BIN: bins.ferretdb ?? '' },
});
// The platform runner handles Ctrl-C itself (the terminal sends SIGINT to the whole group).
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code) => process.exit(code ?? 0));
exitWithParent(() => child.kill('SIGTERM'));
