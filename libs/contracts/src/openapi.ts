import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { z } from './zod.ts';
import { Problem } from './common.ts';
import { routeCatalog, type RouteDef } from './http.ts';

const commonErrors: Record<number, string> = {
  400: 'Invalid input; `errors` names each bad field',
  401: 'Missing or invalid credentials',
  403: 'Not allowed for this role',
  404: 'Not found',
  409: 'Conflict with the current state',
  413: 'Body too large',
  415: 'Body is not application/json',
  429: 'Rate limit exceeded',
  503: 'A dependency is unavailable; retry later',
};

function problemResponse(status: number) {
  return {
    description: commonErrors[status] ?? 'Error',
    content: { 'application/problem+json': { schema: Problem } },
  };
}

function register(registry: OpenAPIRegistry, route: RouteDef) {
  const errorStatuses = new Set([...(route.errors ?? []), 429, 503]);
  if (route.access === 'authenticated') errorStatuses.add(401);
  if (route.body) errorStatuses.add(400);
  const responses: Record<string, unknown> = {
    [route.success.status]: {
      description: route.success.description ?? 'Success',
      ...(route.success.schema || route.success.contentType
        ? {
            content: {
              [route.success.contentType ?? 'application/json']: {
                schema: route.success.schema ?? z.string(),
              },
            },
          }
        : {}),
    },
  };
  for (const status of [...errorStatuses].sort()) responses[status] = problemResponse(status);
  registry.registerPath({
    method: route.method,
    path: route.path,
    summary: route.summary,
    tags: [route.tag],
    security: route.access === 'authenticated' ? [{ bearerAuth: [] }] : [],
    request: {
      ...(route.params ? { params: route.params as never } : {}),
      ...(route.query ? { query: route.query as never } : {}),
      ...(route.body ? { body: { content: { 'application/json': { schema: route.body } } } } : {}),
    },
    responses: responses as never,
  });
}

/** The OpenAPI 3.0 document of the whole public API, generated from the route catalog. */
export function buildOpenApiDocument(serverUrl = '/') {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An access token from /api/v1/auth/login or an API key',
  });
  for (const route of routeCatalog) register(registry, route);
  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Workflow and AI Agent Platform API',
      version: '1.0.0',
      description: 'Workflows, AI agents, executions, integrations, sessions and webhooks.',
    },
    servers: [{ url: serverUrl }],
  });
}
