/**
 * The services behind the gateway and the path prefixes each owns. The gateway builds its proxy table
 * from this list; a prefix belongs to exactly one service.
 */
export const serviceNames = [
  'auth',
  'workflow',
  'execution',
  'agent',
  'integration',
  'session',
  'webhook',
] as const;
export type ServiceName = (typeof serviceNames)[number];

export const servicePrefixes: Record<ServiceName, readonly string[]> = {
  auth: ['/api/v1/auth', '/api/v1/members', '/api/v1/api-keys', '/api/v1/.well-known'],
  workflow: ['/api/v1/workflows', '/api/v1/hooks'],
  execution: ['/api/v1/executions'],
  agent: ['/api/v1/agents'],
  integration: ['/api/v1/integrations', '/api/v1/connections'],
  session: ['/api/v1/sessions'],
  webhook: ['/api/v1/webhooks', '/api/v1/events', '/api/v1/event-types'],
};
