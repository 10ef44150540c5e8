import type { Express } from 'express';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, routeCatalog, serviceNames, type ServiceName } from '@platform/contracts';
import { createLogger, listServedRoutes } from '@platform/kit';
import { TEST_INTERNAL_SECRET } from '@platform/testing';
import { buildApp as buildAuthApp } from '../../auth/src/app.ts';
import { buildApp as buildWebhookApp } from '../../webhook/src/app.ts';
import { buildApp as buildSessionApp } from '../../session/src/app.ts';
import { buildApp as buildIntegrationApp } from '../../integration/src/app.ts';
import { buildApp as buildAgentApp } from '../../agent/src/app.ts';
import { buildApp as buildWorkflowApp } from '../../workflow/src/app.ts';
import { buildApp as buildExecutionApp } from '../../execution/src/app.ts';

/**
 * Every route a service serves is in the OpenAPI document, and every route of the document is served
 * by its service. Apps are built without connections: mounting routes touches no dependency, so the
 * stand-in deps only answer `config` and `logger` and throw on anything else.
 */
function standInDeps(): never {
  const config = new Proxy(
    { INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, BODY_LIMIT: '1mb' } as Record<string, unknown>,
    {
      get: (target, key) => (key in target ? target[key as string] : undefined),
    },
  );
  const logger = createLogger('coverage', 'silent');
  return new Proxy({} as Record<string, unknown>, {
    get: (_t, key) => {
      if (key === 'config') return config;
      if (key === 'logger') return logger;
      return () => {
        throw new Error(`stand-in dependency ${String(key)} used while building the app`);
      };
    },
  }) as never;
}

const builders: Partial<Record<ServiceName, () => Express>> = {
  auth: () => buildAuthApp(standInDeps()),
  webhook: () => buildWebhookApp(standInDeps()),
  session: () => buildSessionApp(standInDeps()),
  integration: () => buildIntegrationApp(standInDeps()),
  agent: () => buildAgentApp(standInDeps()),
  workflow: () => buildWorkflowApp(standInDeps()),
  execution: () => buildExecutionApp(standInDeps()),
};

describe('OpenAPI document and served routes', () => {
  const documented = (service: ServiceName) =>
    routeCatalog
      .filter((r) => r.service === service)
      .map((r) => `${r.method.toUpperCase()} ${r.path}`)
      .sort();

  for (const service of serviceNames) {
    it(`${service}: served routes and documented routes are the same`, () => {
      const build = builders[service];
      const served = build ? listServedRoutes(build()).sort() : [];
      expect(served).toEqual(documented(service));
    });
  }

  it('the document lists every catalog route once and is valid OpenAPI 3.0', () => {
    const doc = buildOpenApiDocument();
    expect(doc.openapi).toBe('3.0.3');
    const inDoc = Object.entries(doc.paths ?? {}).flatMap(([path, ops]) =>
      Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(inDoc.sort()).toEqual(routeCatalog.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort());
  });
});
