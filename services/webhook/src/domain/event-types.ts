import { eventCatalog, eventPayloadJsonSchema, type EventTypeInfo } from '@platform/contracts';
import type { z } from 'zod';

type Info = z.infer<typeof EventTypeInfo>;
let cached: Info[] | undefined;

/** The event catalog with each payload's JSON Schema (built once: it never changes while running). */
export function listEventTypes(): { items: Info[] } {
  cached ??= eventCatalog.map((e) => ({
    type: e.type,
    description: e.description,
    optIn: e.optIn,
    schema: eventPayloadJsonSchema(e),
  }));
  return { items: cached };
}
