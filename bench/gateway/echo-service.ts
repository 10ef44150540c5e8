// The upstream of the gateway benchmark: a service built like every service of the platform (kit's
// HTTP app, request ids, helmet, an authenticated route that verifies the gateway's internal token)
// whose handler does no I/O, so that the figures are those of the proxy path, not of a database.
import type { AddressInfo } from 'node:net';
import type { RouteDef } from '@platform/contracts';
import { createHttpApp, createLogger, mountRoute } from '@platform/kit';

export const ECHO_PATH = '/api/v1/workflows/bench-echo';

const route = {
  service: 'workflow',
  method: 'get',
  path: ECHO_PATH,
  summary: 'benchmark echo',
  tag: 'Bench',
  access: 'authenticated',
  success: { status: 200 },
} as RouteDef & { access: 'authenticated' };

const logger = createLogger('bench-echo', process.env.LOG_LEVEL ?? 'info');
const app = createHttpApp({
  logger,
  routes: (a) => {
    mountRoute(a, route, process.env.INTERNAL_TOKEN_SECRET!, ({ identity }) => ({
      ok: true,
      orgId: identity.orgId,
    }));
  },
});
const server = app.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  logger.warn({ port: (server.address() as AddressInfo).port }, 'bench echo listening');
});
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
