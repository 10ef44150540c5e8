import { routeCatalog } from '@platform/contracts';

/**
 * What needs no bearer token: every contract route declared `access: 'public'` (login, signup,
 * refresh, invitations, JWKS…) and the inbound workflow webhooks under `/api/v1/hooks/`, which the
 * workflow service authenticates with their own secret. Health, readiness and the API document are
 * answered before the guards run.
 */
const publicPrefixes = ['/api/v1/hooks/'];

function pattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

export function publicRouteMatcher() {
  const routes = routeCatalog
    .filter((r) => r.access === 'public')
    .map((r) => ({ method: r.method.toUpperCase(), re: pattern(r.path) }));
  return (method: string, path: string): boolean => {
    const m = method === 'HEAD' ? 'GET' : method;
    if (publicPrefixes.some((p) => path.startsWith(p))) return true;
    return routes.some((r) => r.method === m && r.re.test(path));
  };
}
