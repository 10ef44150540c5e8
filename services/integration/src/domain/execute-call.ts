import { AppError, type Logger } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { callRejected, redact, secretStrings, ThirdPartyError, timedOut } from '../integrations/errors.ts';
import type { ActionContext, IntegrationDefinition } from '../integrations/types.ts';
import type { ConnectionDoc } from '../models/connection.ts';
import { actionContext, withDeadline } from './context.ts';
import { markFailing, markHealthy, touchUsed } from './health.ts';
import { findConnection } from './list-connections.ts';
import { loadIntegration } from './run-context.ts';

export interface CallRequest {
  orgId: string;
  connectionId: string;
  requestId?: string;
  timeoutMs?: number;
}

/** Errors leave without any credential value in them; unexpected ones become a plain `internal`. */
function sanitize(err: unknown, secrets: string[], log: Logger): AppError {
  if (err instanceof AppError) {
    err.message = redact(err.message, secrets);
    for (const e of err.extra.errors ?? []) e.message = redact(e.message, secrets);
    return err;
  }
  log.error(
    { err: redact((err as Error)?.message ?? String(err), secrets) },
    'integration call failed unexpectedly',
  );
  return new AppError(500, 'internal', 'Internal error', 'The integration failed unexpectedly');
}

/**
 * One use of a connection on behalf of an organization: the connection must be the organization's
 * (another's is not_found) and not revoked; the work runs under the deadline; a failure that is the
 * connection's fault turns it `failing`, a success after failures turns it `active` again.
 */
export async function executeCall<T>(
  deps: IntegrationDeps,
  req: CallRequest,
  log: Logger,
  work: (ctx: ActionContext<unknown, unknown>, def: IntegrationDefinition<unknown, unknown>) => Promise<T>,
): Promise<{
  value: T;
  doc: ConnectionDoc;
  def: IntegrationDefinition<unknown, unknown>;
  durationMs: number;
}> {
  const started = performance.now();
  const doc = await findConnection(deps, req.orgId, req.connectionId);
  const { def, credentials, settings } = loadIntegration(deps, doc);
  const deadline = Date.now() + (req.timeoutMs ?? deps.config.ACTION_TIMEOUT_MS);
  const ctx = actionContext(deps, def, {
    connectionId: doc._id,
    credentials,
    settings,
    deadline,
    requestId: req.requestId,
    log,
  });
  let value: T;
  try {
    value = await withDeadline(work(ctx, def), deadline, () => timedOut(def.who ?? def.name));
  } catch (err) {
    const safe = sanitize(err, secretStrings(credentials), log);
    if (safe instanceof ThirdPartyError && safe.isConnectionFault) {
      await markFailing(deps, doc, safe.message, { requestId: req.requestId }).catch((e: Error) =>
        log.warn({ err: e.message }, 'could not record the failing status'),
      );
    }
    throw safe;
  }
  // A reply larger than the server's max_payload could not be sent: say so instead of going silent.
  const size = Buffer.byteLength(JSON.stringify(value ?? null));
  const limit = (deps.nc.info?.max_payload ?? 1_048_576) - 4096;
  if (size > limit) {
    throw callRejected(def.who ?? def.name, undefined, `the answer (${size} bytes) is too large to return`);
  }
  try {
    if (doc.status === 'failing') await markHealthy(deps, doc);
    await touchUsed(deps, doc);
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'could not record the use of the connection');
  }
  return { value, doc, def, durationMs: Math.round(performance.now() - started) };
}
