import type { Readiness } from '@platform/contracts';
import { evaluateReadiness, type ReadinessCheck } from '@platform/kit';
import type { Upstream } from './upstreams.ts';

/** The gateway is ready when its own dependencies and every routed service answer /readyz with 200. */
export function aggregateReadiness(upstreams: Upstream[], own: ReadinessCheck[]): () => Promise<Readiness> {
  const checks: ReadinessCheck[] = [
    ...own,
    ...upstreams.map((u) => ({
      name: u.service,
      check: async () => {
        const res = await fetch(`${u.url}/readyz`, { signal: AbortSignal.timeout(1_500) });
        await res.body?.cancel();
        return res.ok;
      },
    })),
  ];
  return () => evaluateReadiness(checks, 2_000);
}
