import type { Readiness } from '@platform/contracts';

/** A named readiness probe: resolves true when the dependency answers within the probe's time. */
export type ReadinessCheck = { name: string; check: () => Promise<boolean> };

export async function evaluateReadiness(checks: ReadinessCheck[], timeoutMs = 1500): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const ok = await Promise.race([
          check(),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(false), timeoutMs);
          }),
        ]);
        return [name, ok ? { ok: true } : { ok: false, detail: 'not reachable' }] as const;
      } catch (err) {
        return [name, { ok: false, detail: (err as Error).message }] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const checksOut = Object.fromEntries(results);
  const ready = results.every(([, r]) => r.ok);
  return { status: ready ? 'ready' : 'unavailable', checks: checksOut };
}
