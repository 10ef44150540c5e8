import { optInEventTypes } from '@platform/contracts';
import { AppError, checkOutboundUrl, ValidationError } from '@platform/kit';

/**
 * A registered URL must be http(s) and, unless ALLOW_PRIVATE_NETWORK, not name a private address
 * literally; the address a name resolves to is checked again on every delivery (DNS may change).
 */
export function checkEndpointUrl(url: string, allowPrivateNetwork: boolean): string {
  try {
    return checkOutboundUrl(url, allowPrivateNetwork).toString();
  } catch (err) {
    if (err instanceof AppError) {
      throw new ValidationError([{ field: 'url', message: err.message, location: 'body' }]);
    }
    throw err;
  }
}

/** Event types without repeats; with `*`, only the opt-in types are worth naming beside it. */
export function normalizeEvents(events: string[]): string[] {
  const unique = [...new Set(events)];
  if (!unique.includes('*')) return unique;
  return ['*', ...unique.filter((e) => optInEventTypes.has(e))];
}
