import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/** helmet's settings for every gateway answer: APIs and the docs page run no scripts. */
export const helmetOptions = { contentSecurityPolicy: { directives: { 'script-src': ["'none'"] } } };

/**
 * The fields helmet sets, read once at start by running it on a recording response: the hot path
 * then sets the same fields from a list instead of running helmet's middleware chain per request.
 */
export function securityHeaders(): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => {
      fields.push([name, Array.isArray(value) ? value.join(', ') : String(value)]);
    },
    removeHeader: () => undefined,
    getHeader: () => undefined,
  };
  let done = false;
  helmet(helmetOptions)(
    { headers: {} } as IncomingMessage,
    recorder as unknown as ServerResponse,
    (err?: unknown) => {
      if (err) throw err;
      done = true;
    },
  );
  if (!done) throw new Error('helmet did not finish synchronously');
  return fields;
}
