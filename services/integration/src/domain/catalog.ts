import { z, type ZodType } from 'zod';
import type { Integration, IntegrationCategory } from '@platform/contracts';
import { decodeCursor, encodeCursor, NotFoundError, type Page, type PageInput } from '@platform/kit';
import { findIntegration, integrations } from '../integrations/registry.ts';
import type { IntegrationDefinition } from '../integrations/types.ts';

/**
 * The catalog as the API shows it: each module's zod schemas become JSON Schema (what a client sends
 * for credentials, settings and action input; what an action returns). Built once per process.
 */
function jsonSchema(schema: ZodType, io: 'input' | 'output'): Record<string, unknown> {
  return z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
}

function toIntegration(def: IntegrationDefinition<unknown, unknown>): Integration {
  return {
    id: def.id,
    name: def.name,
    description: def.description,
    category: def.category,
    authKind: def.authKinds[0],
    authKinds: [...def.authKinds],
    credentialsSchema: jsonSchema(def.credentials, 'input'),
    settingsSchema: jsonSchema(def.settings, 'input'),
    testable: def.test !== undefined,
    actions: Object.entries(def.actions).map(([id, action]) => ({
      id,
      description: action.description,
      input: jsonSchema(action.input, 'input'),
      output: jsonSchema(action.output, 'output'),
    })),
  };
}

let views: Integration[] | undefined;
function catalog(): Integration[] {
  views ??= integrations.map(toIntegration).sort((a, b) => a.name.localeCompare(b.name));
  return views;
}

export interface IntegrationFilter extends PageInput {
  category?: IntegrationCategory;
  search?: string;
}

/** In-memory list: filtered, sorted by name; the cursor names the last integration seen. */
export function listIntegrations(filter: IntegrationFilter): Page<Integration> {
  const needle = filter.search?.toLowerCase();
  const matching = catalog().filter(
    (i) =>
      (!filter.category || i.category === filter.category) &&
      (!needle ||
        [i.id, i.name, i.description, ...i.actions.map((a) => a.id)].some((text) =>
          text.toLowerCase().includes(needle),
        )),
  );
  let start = (filter.page - 1) * filter.pageSize;
  if (filter.cursor) {
    const { id } = decodeCursor(filter.cursor);
    start = matching.findIndex((i) => i.id === id) + 1;
  }
  const items = matching.slice(start, start + filter.pageSize);
  const last = items.length === filter.pageSize ? items[items.length - 1] : undefined;
  return {
    items,
    total: matching.length,
    page: filter.page,
    pageSize: filter.pageSize,
    totalPages: Math.ceil(matching.length / filter.pageSize),
    nextCursor:
      last && start + items.length < matching.length ? encodeCursor({ v: last.name, id: last.id }) : null,
  };
}

export function getIntegration(id: string): Integration {
  if (!findIntegration(id)) throw new NotFoundError(`No integration "${id}" in the catalog`);
  return catalog().find((i) => i.id === id)!;
}
