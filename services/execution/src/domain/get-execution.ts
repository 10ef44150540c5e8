import type { Execution } from '@platform/contracts';
import type { ExecutionDeps } from '../deps.ts';
import { cancelPending, findExecution } from './find-execution.ts';
import { toExecution } from './views.ts';

export async function getExecution(deps: ExecutionDeps, orgId: string, id: string): Promise<Execution> {
  const doc = await findExecution(deps, orgId, id);
  return toExecution(doc, await cancelPending(deps, doc));
}
