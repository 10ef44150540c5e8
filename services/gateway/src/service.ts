import type { ServiceDefinition } from '@platform/kit';
import { buildGatewayApp } from './app.ts';
import { gatewayEnv } from './config.ts';
import { aggregateReadiness } from './readiness.ts';
import { upstreamsFrom } from './upstreams.ts';

export const gatewayService: ServiceDefinition<typeof gatewayEnv> = {
  name: 'gateway',
  env: gatewayEnv,
  async start({ config, logger, readiness }) {
    const upstreams = upstreamsFrom(config);
    logger.info({ upstreams: upstreams.map((u) => `${u.service}=${u.url}`) }, 'routing');
    const app = buildGatewayApp({
      logger,
      upstreams,
      readiness: aggregateReadiness(upstreams, readiness),
      corsOrigins: config.CORS_ORIGINS,
      bodyLimit: config.BODY_LIMIT,
      upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
      upstreamMaxSockets: config.UPSTREAM_MAX_SOCKETS,
    });
    return { app };
  },
};
