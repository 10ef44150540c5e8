import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

const colors = ['36', '32', '35', '33', '34', '31', '96', '92', '95'];
const levelColor: Record<string, string> = { warn: '33', error: '31', fatal: '31' };

/** Turns a service's pino JSON lines into short coloured lines on the terminal. */
export function prettyLines(name: string, index: number, stream: Readable | null) {
  if (!stream) return;
  const tag = `\x1b[${colors[index % colors.length]}m${name.padEnd(11)}\x1b[0m`;
  createInterface({ input: stream }).on('line', (line) => {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      const { level, msg, time, service: _s, pid: _p, hostname: _h, ...rest } = entry;
      const clock = typeof time === 'string' ? time.slice(11, 19) : '';
      const lvl = String(level ?? 'info');
      const colored = levelColor[lvl] ? `\x1b[${levelColor[lvl]}m${lvl}\x1b[0m` : lvl;
      const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
      console.log(`${tag} ${clock} ${colored} ${String(msg ?? '')}${extra}`);
    } catch {
      console.log(`${tag} ${line}`);
    }
  });
}
