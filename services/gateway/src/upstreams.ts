import { serviceNames, servicePrefixes, type ServiceName } from '@platform/contracts';

export interface Upstream {
  service: ServiceName;
  url: string;
  prefixes: readonly string[];
}

const envVar = (service: ServiceName) => `${service.toUpperCase()}_URL` as const;

/** The services the gateway routes to: those whose URL is configured. */
export function upstreamsFrom(config: Record<string, unknown>): Upstream[] {
  return serviceNames
    .filter((service) => typeof config[envVar(service)] === 'string')
    .map((service) => ({
      service,
      url: String(config[envVar(service)]),
      prefixes: servicePrefixes[service],
    }));
}

export function ownsPath(upstream: Upstream, path: string): boolean {
  return upstream.prefixes.some((p) => path === p || path.startsWith(`${p}/`));
}
