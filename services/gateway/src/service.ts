import { createAccessLogger, type ServiceDefinition } from '@platform/kit';
import { buildGatewayApp } from './app.ts';
import { gatewayEnv } from './config.ts';
import { buildGuards } from './guards.ts';
import { aggregateReadiness } from './readiness.ts';
import { upstreamsFrom } from './upstreams.ts';

export const gatewayService: ServiceDefinition<typeof gatewayEnv> = {
  name: 'gateway',
  env: gatewayEnv,
  async start({ config, logger, nats, readiness }) {
    const upstreams = upstreamsFrom(config);
    logger.info({ upstreams: upstreams.map((u) => `${u.service}=${u.url}`) }, 'routing');
    const guards = buildGuards(nats.nc, config, logger);
    const app = buildGatewayApp({
      logger,
      accessLogger: createAccessLogger('gateway', config.LOG_LEVEL),
      upstreams,
      readiness: aggregateReadiness(upstreams, [...readiness, guards.readiness]),
      corsOrigins: config.CORS_ORIGINS,
      bodyLimit: config.BODY_LIMIT,
      upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
      upstreamMaxSockets: config.UPSTREAM_MAX_SOCKETS,
      guards: guards.guards,
      trustProxy: config.TRUST_PROXY,
    });
    return { app, stop: async () => guards.stop() };
  },
};
