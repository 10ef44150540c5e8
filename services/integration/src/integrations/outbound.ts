import { AppError, OutboundBlockedError, OutboundNetworkError, outboundFetch } from '@platform/kit';
import {
  blocked,
  callRejected,
  failureForStatus,
  timedOut,
  unreachable,
  type ThirdPartyError,
} from './errors.ts';

export interface HttpRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  truncated: boolean;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface ActionHttpOptions {
  allowPrivateNetwork: boolean;
  deadline: number;
  maxResponseBytes: number;
  userAgent: string;
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `Retry-After` in seconds (delta or HTTP date). */
export function retryAfterSeconds(headers: Record<string, string>): number | undefined {
  const value = headers['retry-after'];
  if (!value) return undefined;
  const n = Number(value);
  if (Number.isFinite(n)) return n;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** The error text most JSON APIs put in their error bodies, else the start of the body. */
export function defaultDetail(res: HttpResponse): string | undefined {
  const body = res.json as Record<string, unknown> | undefined;
  const error = body?.error;
  const candidates = [
    typeof error === 'object' && error ? (error as Record<string, unknown>).message : undefined,
    body?.message,
    body?.description,
    typeof error === 'string' ? error : undefined,
  ];
  const found = candidates.find((c): c is string => typeof c === 'string' && c.length > 0);
  const text = found ?? (res.json === undefined ? res.text.trim() : undefined);
  return text ? text.slice(0, 300) : undefined;
}

/**
 * Outbound HTTP of one action: every call goes through the kit's outboundFetch (address policy,
 * bounded body) with what is left of the action's deadline as its timeout, and failures become
 * the typed errors of errors.ts.
 */
export class ActionHttp {
  constructor(
    private readonly who: string,
    private readonly options: ActionHttpOptions,
  ) {}

  remainingMs(): number {
    return this.options.deadline - Date.now();
  }

  /** Sends a request; any HTTP status is returned, only transport failures throw. */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const remaining = this.remainingMs();
    if (remaining <= 0) throw timedOut(this.who);
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent,
      accept: 'application/json',
      ...req.headers,
    };
    let body = req.body;
    if (req.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.form) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      body = new URLSearchParams(req.form).toString();
    }
    try {
      const res = await outboundFetch(
        req.url,
        { method: req.method ?? (body === undefined ? 'GET' : 'POST'), headers, body },
        {
          allowPrivateNetwork: this.options.allowPrivateNetwork,
          timeoutMs: remaining,
          maxResponseBytes: this.options.maxResponseBytes,
        },
      );
      return { ...res, text: res.body, json: parseJson(res.body) };
    } catch (err) {
      throw this.transportFailure(err);
    }
  }

  /** Sends a request and turns any non-2xx answer into the typed error of its status. */
  async expectOk(
    req: HttpRequest,
    detailOf: (res: HttpResponse) => string | undefined = defaultDetail,
  ): Promise<HttpResponse> {
    const res = await this.send(req);
    if (res.status >= 200 && res.status < 300) return res;
    throw this.failure(res, detailOf(res));
  }

  failure(res: HttpResponse, detail?: string): ThirdPartyError {
    if (res.status >= 300 && res.status < 400) {
      return callRejected(this.who, res.status, 'redirects are not followed');
    }
    return failureForStatus(this.who, res.status, detail, retryAfterSeconds(res.headers));
  }

  private transportFailure(err: unknown): Error {
    if (err instanceof OutboundBlockedError) return blocked(err.message);
    if (err instanceof OutboundNetworkError) {
      return err.code === 'timeout' ? timedOut(this.who) : unreachable(this.who, err.message);
    }
    if (err instanceof AppError && err.kind === 'validation') return blocked(err.message);
    return unreachable(this.who, (err as Error).message);
  }
}
