// The local platform behind `npm start`: infrastructure, every service and the gateway, as child
// processes watched so that Ctrl-C (or the death of this process) leaves nothing running.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  spawnManaged,
  startMongo,
  startNats,
  waitForPort,
  type InfraServer,
  type ManagedProcess,
} from '@platform/testing';
import { localSecrets } from './local-env.ts';
import { prettyLines } from './pretty-log.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dataDir = process.env.DATA_DIR ?? join(root, '.data');
const gatewayPort = Number(process.env.GATEWAY_PORT ?? process.env.PORT ?? 8080);
const firstServicePort = Number(process.env.SERVICES_BASE_PORT ?? 3101);
const say = (m: string) => console.log(`\x1b[36m▶\x1b[0m ${m}`);

const services = readdirSync(join(root, 'services'))
  .filter((name) => name !== 'gateway' && existsSync(join(root, 'services', name, 'src', 'main.ts')))
  .sort();

const infra: InfraServer[] = [];
const processes: ManagedProcess[] = [];
let stopping = false;

async function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  say('stopping the platform…');
  await Promise.all([...processes].reverse().map((p) => p.stop(10_000)));
  await Promise.all(infra.map((s) => s.stop()));
  say('stopped; nothing is left running');
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
// When `npm start` itself is killed, stop too rather than run on unattended.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) void stopAll(0);
}, 1000).unref();

async function main() {
  mkdirSync(dataDir, { recursive: true });
  const secrets = localSecrets(dataDir);
  let natsUrl = process.env.NATS_URL;
  let mongoUrl = process.env.MONGO_URL;
  if (!natsUrl) {
    say('starting nats-server (JetStream) with data in .data/nats');
    const nats = await startNats({
      dir: join(dataDir, 'nats'),
      port: Number(process.env.LOCAL_NATS_PORT ?? 14222),
    });
    infra.push(nats);
    natsUrl = nats.url;
  }
  if (!mongoUrl) {
    say('starting FerretDB (MongoDB wire protocol, SQLite) with data in .data/mongo');
    const mongo = await startMongo({
      dir: join(dataDir, 'mongo'),
      port: Number(process.env.LOCAL_MONGO_PORT ?? 27027),
    });
    infra.push(mongo);
    mongoUrl = mongo.url;
  }
  const common: Record<string, string> = {
    NATS_URL: natsUrl,
    MONGO_URL: mongoUrl,
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    SIGNUP_ENABLED: 'true',
    ALLOW_PRIVATE_NETWORK: 'true',
    BOOTSTRAP_ADMIN_EMAIL: process.env.BOOTSTRAP_ADMIN_EMAIL ?? 'admin@example.com',
    ...secrets,
  };
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && /^[A-Z_]+$/.test(key)) common[key] ??= value;
  const urls: Record<string, string> = {};
  const start = (name: string, port: number, extra: Record<string, string> = {}) => {
    const proc = spawnManaged(
      name,
      process.execPath,
      ['--import', 'tsx', join(root, 'services', name, 'src', 'main.ts')],
      {
        cwd: root,
        env: { ...process.env, ...common, ...extra, PORT: String(port) },
        onOutput: (out, err) => {
          prettyLines(name, processes.length, out as never);
          prettyLines(name, processes.length, err as never);
        },
      },
    );
    processes.push(proc);
    void proc.exited.then((code) => {
      if (!stopping) {
        console.error(`${name} exited with code ${code}; stopping the platform (see its lines above)`);
        void stopAll(1);
      }
    });
    return waitForPort(port, 60_000);
  };
  say(`starting ${services.length} services: ${services.join(', ')}`);
  await Promise.all(
    services.map((name, i) => {
      const port = firstServicePort + i;
      urls[`${name.toUpperCase()}_URL`] = `http://127.0.0.1:${port}`;
      return start(name, port);
    }),
  );
  say('starting the gateway');
  await start('gateway', gatewayPort, { ...urls, HOST: process.env.GATEWAY_HOST ?? '0.0.0.0' });
  for (let i = 0; i < 120; i++) {
    const res = await fetch(`http://127.0.0.1:${gatewayPort}/readyz`).catch(() => undefined);
    if (res?.ok) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  say(
    `the platform is ready at http://localhost:${gatewayPort}  (API docs: http://localhost:${gatewayPort}/docs)`,
  );
  say(
    `local admin: ${common.BOOTSTRAP_ADMIN_EMAIL} / ${secrets.BOOTSTRAP_ADMIN_PASSWORD}  (from .data/local-secrets.json)`,
  );
  say('press Ctrl-C to stop everything');
}

main().catch((err) => {
  console.error(`could not start the platform: ${(err as Error).message}`);
  void stopAll(1);
});
