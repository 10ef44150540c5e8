import { createHash } from 'node:crypto';

/** An execution id derived from what fired (a tick, an event): firing twice starts one execution. */
export function derivedExecutionId(...parts: string[]): string {
  return `exe_${createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32)}`;
}
