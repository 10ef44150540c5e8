// What the benchmarks read about processes from Linux's /proc: CPU time and memory. CPU time per
// unit of work does not depend on what else runs on the machine the way wall-clock figures do, so
// it is how the benchmarks show where the time goes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** utime + stime of a process in seconds (0 when it is gone). */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Resident memory (`VmRSS`) or its peak (`VmHWM`) in MB, NaN when the process is gone. */
export function memoryMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

/** The direct children of a process (nginx's workers, for example). */
export function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
}

/**
 * CPU time of named processes over a window: `start()` then `stop()` gives each one's seconds.
 * `perUnit(n)` formats milliseconds per unit of work (e.g. per execution), busiest first.
 */
export function cpuWindow(processes: Record<string, Array<number | undefined>>) {
  const read = (): Map<string, number> =>
    new Map(
      Object.entries(processes).map(([name, pids]) => [
        name,
        pids.reduce<number>((sum, pid) => sum + cpuSeconds(pid), 0),
      ]),
    );
  const before = read();
  const wallStart = performance.now();
  return {
    stop() {
      const after = read();
      const seconds = (performance.now() - wallStart) / 1000;
      const used = [...after]
        .map(([name, s]) => ({ name, cpuSeconds: s - (before.get(name) ?? 0) }))
        .sort((a, b) => b.cpuSeconds - a.cpuSeconds);
      return {
        seconds,
        used,
        perUnit: (units: number) =>
          used.map((u) => `${u.name} ${((u.cpuSeconds / units) * 1000).toFixed(2)} ms`).join(', '),
        cores: (name: string) => (used.find((u) => u.name === name)?.cpuSeconds ?? 0) / seconds,
      };
    },
  };
}

/**
 * Pins a running process and all its threads to the given CPUs (`taskset -a -p -c`), so that a
 * benchmark can give the component it measures a core of its own, as a production pod has.
 */
export function pinToCpus(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}
