import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identity } from '@platform/contracts';

/**
 * One proxied request as the gateway's hot path sees it: the raw node:http pair plus what the
 * gateway works out on the way (no express on this path: its router and request helpers cost
 * more CPU than the rest of the gateway's work together).
 */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  /** The URL's path without the query string (not decoded). */
  path: string;
  requestId: string;
  /** The client's address, from X-Forwarded-For only when the peer is a trusted proxy. */
  clientIp: string;
  /** Set by authentication on non-public routes. */
  identity?: Omit<Identity, 'requestId'>;
  /** Set after the rate limit: the signed identity the service receives. */
  internalToken?: string;
}

/** A step of the hot path: returns normally to go on, throws an AppError to answer with a problem. */
export type Guard = (x: Exchange) => void | Promise<void>;
