import type { FieldError, RunActionReply, RunActionRequest } from '@platform/contracts';
import { toFieldErrors, ValidationError, type Logger } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { callRejected } from '../integrations/errors.ts';
import { executeCall } from './execute-call.ts';

/** svc.integration.run-action: runs one action of a connection and returns its validated output. */
export async function runAction(
  deps: IntegrationDeps,
  req: RunActionRequest,
  log: Logger,
): Promise<RunActionReply> {
  const { value, doc, durationMs } = await executeCall(deps, req, log, async (ctx, def) => {
    const action = def.actions[req.action];
    if (!action) {
      const known = Object.keys(def.actions).join(', ');
      throw new ValidationError([{ field: 'action', message: `is not an action of ${def.name} (${known})` }]);
    }
    const input = action.input.safeParse(req.input ?? {});
    if (!input.success) {
      const errors: FieldError[] = toFieldErrors(input.error.issues).map((e) => ({
        field: e.field === '(root)' ? 'input' : `input.${e.field}`,
        message: e.message,
      }));
      throw new ValidationError(errors, 'The action input has invalid fields');
    }
    const raw = await action.run(ctx, input.data);
    const output = action.output.safeParse(raw);
    if (!output.success)
      throw callRejected(def.who ?? def.name, undefined, 'the answer does not have the expected shape');
    return output.data as unknown;
  });
  return {
    output: value,
    connectionId: doc._id,
    integrationId: doc.integrationId,
    action: req.action,
    durationMs,
  };
}
