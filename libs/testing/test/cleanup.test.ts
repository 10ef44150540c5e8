import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('./fixtures/hold-infra.ts', import.meta.url));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('cleanup after a hard kill', () => {
  it('leaves no process and no folder when the owner is killed with SIGKILL', async () => {
    const owner = spawn(process.execPath, ['--import', 'tsx', fixture], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve) =>
      createInterface({ input: owner.stdout! }).once('line', resolve),
    );
    const { dirs, children } = JSON.parse(line) as { dirs: string[]; children: number[] };
    const servers = children.filter(alive);
    expect(dirs.every((d) => existsSync(d))).toBe(true);
    expect(servers.length).toBeGreaterThanOrEqual(2);
    owner.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (servers.some(alive) || dirs.some((d) => existsSync(d)))) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(servers.filter(alive)).toEqual([]);
    expect(dirs.filter((d) => existsSync(d))).toEqual([]);
  });
});
