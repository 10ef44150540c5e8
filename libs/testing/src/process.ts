import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const watchdogPath = fileURLToPath(new URL('./watchdog.mjs', import.meta.url));
const live = new Set<ManagedProcess>();

export interface ManagedProcess {
  child: ChildProcess;
  name: string;
  /** SIGTERM, then SIGKILL after graceMs; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once (crash tests). */
  kill(): Promise<void>;
  exited: Promise<number | null>;
}

/**
 * Spawns a child process watched by a detached watchdog: if this process dies without stopping it,
 * the watchdog kills it and removes `cleanupDir`. Output goes to `logFile` (or is dropped).
 */
export function spawnManaged(
  name: string,
  command: string,
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    logFile?: string;
    cleanupDir?: string;
    inheritOutput?: boolean;
    /** Receives stdout and stderr instead of a log file. */
    onOutput?: (stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) => void;
  } = {},
): ManagedProcess {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: options.inheritOutput ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'pipe'],
  });
  if (!options.inheritOutput) {
    if (options.onOutput && child.stdout && child.stderr) {
      options.onOutput(child.stdout, child.stderr);
    } else if (options.logFile) {
      const out = createWriteStream(options.logFile, { flags: 'a' });
      child.stdout?.pipe(out);
      child.stderr?.pipe(out);
    } else {
      child.stdout?.resume();
      child.stderr?.resume();
    }
  }
  const watchdog = spawn(
    process.execPath,
    [
      watchdogPath,
      String(process.pid),
      String(child.pid),
      ...(options.cleanupDir ? [options.cleanupDir] : []),
    ],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const handle: ManagedProcess = {
    child,
    name,
    exited,
    async stop(graceMs = 5_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      live.delete(handle);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      live.delete(handle);
    },
  };
  live.add(handle);
  void exited.then(() => live.delete(handle));
  return handle;
}

/** Last resort on exit: SIGKILL whatever is still running (the watchdogs cover a hard kill). */
function killAllSync() {
  for (const p of live) p.child.kill('SIGKILL');
}
process.once('exit', killAllSync);

export function removeDir(dir: string) {
  rmSync(dir, { recursive: true, force: true });
}
