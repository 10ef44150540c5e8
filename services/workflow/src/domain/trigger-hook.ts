import type { Request } from 'express';
import type { HookAccepted } from '@platform/contracts';
import { idempotencyKeyOf, NotFoundError, UnauthorizedError, withIdempotency } from '@platform/kit';
import type { WorkflowDeps } from '../deps.ts';
import { requestExecution } from './request-execution.ts';
import { verifyHookCall } from './webhook-secret.ts';
import { liveWorkflowToRun } from './workflow-cache.ts';

/** Request headers passed to the execution's input (never credentials or signatures). */
const passedHeaders = ['content-type', 'user-agent', 'x-request-id', 'x-github-event', 'x-event-type'];

/**
 * POST /hooks/{workflowId}: public, no bearer token. The caller proves it knows the workflow's
 * secret (signature of the body, or the token); the execution's input is {body, headers}.
 * An Idempotency-Key makes a resent call answer the first execution.
 */
export async function triggerHook(
  deps: WorkflowDeps,
  workflowId: string,
  req: Request,
  requestId: string,
): Promise<HookAccepted> {
  const doc = await liveWorkflowToRun(deps, workflowId);
  if (!doc || doc.trigger !== 'webhook' || !doc.active || !doc.webhookSecretSealed) {
    throw new NotFoundError('No active webhook trigger at this address');
  }
  const raw = (req as Request & { rawBody?: Buffer }).rawBody ?? Buffer.alloc(0);
  const ok = verifyHookCall(
    deps.config.KEY_ENCRYPTION_KEYS,
    doc.webhookSecretSealed,
    doc._id,
    raw,
    req.header('x-signature-256'),
    req.header('x-webhook-token'),
  );
  if (!ok) {
    throw new UnauthorizedError(
      'Sign the body (X-Signature-256: sha256=<hex HMAC-SHA256>) or send X-Webhook-Token with the workflow’s secret',
      'HMAC-SHA256 realm="hooks"',
    );
  }
  const headers: Record<string, string> = {};
  for (const name of passedHeaders) {
    const value = req.header(name);
    if (value) headers[name] = value;
  }
  const input = { body: (req.body as unknown) ?? null, headers };
  const { result, replayed } = await withIdempotency(
    deps.db,
    { orgId: doc.orgId, scope: `hook:${doc._id}`, key: idempotencyKeyOf(req), request: { body: input.body } },
    () => requestExecution(deps, doc, input, { kind: 'webhook' }, { requestId }),
  );
  return { executionId: result.id, workflowId: doc._id, status: result.status, replayed };
}
