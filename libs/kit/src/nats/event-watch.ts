import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { z } from 'zod';
import type { EventDef } from '@platform/contracts';

/**
 * Hears domain events as they are published (core NATS, no consumer, nothing replayed): for
 * in-memory caches that drop an entry when it changes. Payloads that fail their schema are ignored.
 */
export function watchEvents<D extends EventDef>(
  nc: NatsConnection,
  defs: readonly D[],
  onEvent: (payload: z.infer<D['payload']>, def: D) => void,
): Subscription[] {
  return defs.map((def) =>
    nc.subscribe(def.subject, {
      callback: (err, msg) => {
        if (err) return;
        let raw: unknown;
        try {
          raw = msg.json();
        } catch {
          return;
        }
        const parsed = def.payload.safeParse(raw);
        if (parsed.success) onEvent(parsed.data as z.infer<D['payload']>, def);
      },
    }),
  );
}
