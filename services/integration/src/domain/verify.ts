import { AppError, ValidationError, type Logger } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { redact, secretStrings, ThirdPartyError, timedOut } from '../integrations/errors.ts';
import type { IntegrationDefinition } from '../integrations/types.ts';
import { actionContext, withDeadline } from './context.ts';

export interface VerifyResult {
  ok: boolean;
  verified: boolean;
  message: string | null;
  durationMs: number;
  /** Present when the test failed; `permanent` failures refuse a create or an update. */
  failure?: { permanent: boolean; credentials: boolean; blocked: boolean };
}

/** Runs the integration's test call (if it has one) under TEST_TIMEOUT_MS; never throws for its outcome. */
export async function verifyCredentials(
  deps: IntegrationDeps,
  def: IntegrationDefinition<unknown, unknown>,
  call: { connectionId: string; credentials: unknown; settings: unknown; log: Logger },
): Promise<VerifyResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (!def.test) {
    return {
      ok: true,
      verified: false,
      message: 'This integration has no test call; the credentials are checked when first used',
      durationMs: 0,
    };
  }
  const deadline = Date.now() + deps.config.TEST_TIMEOUT_MS;
  const ctx = actionContext(deps, def, { ...call, deadline });
  try {
    const outcome = await withDeadline(def.test(ctx), deadline, () => timedOut(def.who ?? def.name));
    return { ok: true, verified: outcome.verified, message: outcome.message ?? null, durationMs: elapsed() };
  } catch (err) {
    const secrets = secretStrings(call.credentials);
    if (!(err instanceof AppError)) {
      call.log.error({ err: redact((err as Error).message ?? '', secrets) }, 'test call failed unexpectedly');
    }
    const message =
      err instanceof AppError ? redact(err.message, secrets) : 'The test call failed unexpectedly';
    const kind = err instanceof AppError ? err.kind : 'internal';
    const reason = err instanceof ThirdPartyError ? err.reason : undefined;
    return {
      ok: false,
      verified: true,
      message,
      durationMs: elapsed(),
      failure: {
        permanent: kind !== 'unavailable' && kind !== 'timeout' && kind !== 'internal',
        credentials: reason === 'credentials',
        blocked: reason === 'blocked',
      },
    };
  }
}

/** A create or update whose test failed for good (bad credentials, refused address, 4xx) is a 400. */
export function refuseIfPermanentlyFailed(result: VerifyResult) {
  if (!result.failure?.permanent) return;
  const message = result.message ?? 'the test call failed';
  throw new ValidationError(
    [{ field: result.failure.blocked ? 'settings' : 'credentials', message, location: 'body' }],
    `The connection could not be verified: ${message}`,
  );
}
