// Started detached beside every child process the harness spawns: when the parent (the test worker or
// `npm start`) disappears without cleaning up, even after kill -9, it kills the child and removes its
// temporary folder, so nothing is left running or lying around.
// argv: parentPid childPid [dirToRemove]
import { rmSync } from 'node:fs';

const [parentPid, childPid, dir] = process.argv.slice(2);
const alive = (pid) => {
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
};
const cleanup = () => {
  if (alive(childPid)) {
    try {
      process.kill(Number(childPid), 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
setInterval(() => {
  if (!alive(childPid)) process.exit(0);
  if (!alive(parentPid)) cleanup();
}, 300);
