import { join } from 'node:path';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { freePort, waitForPort } from './ports.ts';
import { removeDir, spawnManaged, type ManagedProcess } from './process.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** A fixed secret for tests; services and the test client sign/verify internal tokens with it. */
export const TEST_INTERNAL_SECRET = 'test-internal-token-secret-0123456789abcdef';

export interface ServiceProcess {
  name: string;
  url: string;
  port: number;
  logFile: string;
  process: ManagedProcess;
  /** Graceful stop (SIGTERM). */
  stop(): Promise<void>;
  /** kill -9. */
  kill(): Promise<void>;
}

/**
 * Starts `services/<name>/src/main.ts` as its own process (through tsx) on a free port and waits for
 * it to listen. Its logs go to a file in a temporary folder that is removed on stop.
 */
export async function startServiceProcess(
  name: string,
  env: Record<string, string>,
  options: { readyTimeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dir = mkdtempSync(join(tmpdir(), `ap-svc-${name}-`));
  const logFile = join(dir, `${name}.log`);
  const proc = spawnManaged(
    name,
    process.execPath,
    ['--import', 'tsx', join(repoRoot, 'services', name, 'src', 'main.ts')],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
        HOST: '127.0.0.1',
        ...env,
        PORT: String(port),
      },
      logFile,
      cleanupDir: dir,
    },
  );
  const early = proc.exited.then((code) => {
    throw new Error(`service ${name} exited with code ${code} before listening`);
  });
  void early.catch(() => undefined);
  try {
    await Promise.race([waitForPort(port, options.readyTimeoutMs ?? 30_000), early]);
  } catch (err) {
    // Never listened (bad config, crash at start): its folder goes, so the error carries the end
    // of its log.
    await proc.stop().catch(() => undefined);
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n') : '';
    removeDir(dir);
    throw new Error(`${(err as Error).message}\n--- end of its log ---\n${tail}`);
  }
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    port,
    logFile,
    process: proc,
    stop: async () => {
      await proc.stop();
      removeDir(dir);
    },
    kill: async () => {
      await proc.kill();
      removeDir(dir);
    },
  };
}
