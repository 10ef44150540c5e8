import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, waitForPort } from './ports.ts';
import { removeDir, spawnManaged, type ManagedProcess } from './process.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

function binary(envVar: string, script: string): string {
  const fromEnv = process.env[envVar];
  if (fromEnv) return fromEnv;
  const path = execFileSync('bash', [join(repoRoot, 'scripts', 'infra', script)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  process.env[envVar] = path;
  return path;
}

export interface InfraServer {
  url: string;
  port: number;
  dir: string;
  /** The server's process id while it runs (benchmarks read its CPU time from /proc). */
  pid(): number | undefined;
  /** Stops the process but keeps its data (for outage tests); `start()` brings it back on the same port. */
  stop(): Promise<void>;
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  dispose(): Promise<void>;
}

interface ServerSpec {
  name: string;
  dir?: string;
  port?: number;
  keepDir?: boolean;
  logFile?: string;
  launch: (port: number, dir: string) => { command: string; args: string[] };
  url: (port: number) => string;
}

async function startServer(spec: ServerSpec): Promise<InfraServer> {
  const ownDir = !spec.dir;
  const dir = spec.dir ?? mkdtempSync(join(tmpdir(), `ap-${spec.name}-`));
  mkdirSync(dir, { recursive: true });
  const port = spec.port ?? (await freePort());
  let proc: ManagedProcess | undefined;
  const start = async () => {
    const { command, args } = spec.launch(port, dir);
    proc = spawnManaged(spec.name, command, args, {
      logFile: spec.logFile ?? join(dir, `${spec.name}.log`),
      cleanupDir: ownDir && !spec.keepDir ? dir : undefined,
    });
    const early = proc.exited.then((code) => {
      throw new Error(`${spec.name} exited with code ${code}; see ${join(dir, `${spec.name}.log`)}`);
    });
    await Promise.race([waitForPort(port), early]);
    void early.catch(() => undefined);
  };
  await start();
  return {
    url: spec.url(port),
    port,
    dir,
    pid: () => proc?.child.pid,
    start,
    stop: async () => proc?.stop(),
    kill: async () => proc?.kill(),
    dispose: async () => {
      await proc?.stop();
      if (ownDir && !spec.keepDir) removeDir(dir);
    },
  };
}

/** nats-server with JetStream (file store, fsync on every write) on a free port in its own folder. */
export async function startNats(options: { dir?: string; port?: number; keepDir?: boolean } = {}) {
  const bin = binary('NATS_SERVER_BIN', 'ensure-nats-server.sh');
  const version = execFileSync(bin, ['--version'], { encoding: 'utf8' });
  // sync_interval exists from 2.10 on; Debian's older fallback runs without it.
  const syncAlways = !/v2\.[0-9]\./.test(version);
  return startServer({
    ...options,
    name: 'nats',
    url: (port) => `nats://127.0.0.1:${port}`,
    launch: (port, dir) => {
      const conf = join(dir, 'nats.conf');
      writeFileSync(
        conf,
        [
          `listen: "127.0.0.1:${port}"`,
          'jetstream {',
          `  store_dir: "${join(dir, 'jetstream')}"`,
          syncAlways ? '  sync_interval: always' : '',
          '}',
        ].join('\n'),
      );
      return { command: bin, args: ['-c', conf] };
    },
  });
}

/** FerretDB 1.x (MongoDB wire protocol, SQLite backend) on a free port in its own folder. */
export async function startMongo(options: { dir?: string; port?: number; keepDir?: boolean } = {}) {
  const bin = binary('FERRETDB_BIN', 'ensure-ferretdb.sh');
  return startServer({
    ...options,
    name: 'ferretdb',
    url: (port) => `mongodb://127.0.0.1:${port}/`,
    launch: (port, dir) => {
      mkdirSync(join(dir, 'sqlite'), { recursive: true });
      return {
        command: bin,
        args: [
          '--handler=sqlite',
          `--sqlite-url=file:${join(dir, 'sqlite')}/`,
          `--listen-addr=127.0.0.1:${port}`,
          '--telemetry=disable',
          `--state-dir=${dir}`,
          // Off unless a benchmark asks for FerretDB's pprof handler (bench/executions does, to show
          // where the storage server's time goes).
          `--debug-addr=${process.env.FERRETDB_DEBUG_ADDR ?? '-'}`,
          '--log-level=warn',
        ],
      };
    },
  });
}
