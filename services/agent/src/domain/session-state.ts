import { sessionRpc, type SessionStatus } from '@platform/contracts';
import { NotFoundError, rpcRequest, type Logger } from '@platform/kit';
import type { AgentDeps } from '../deps.ts';

/**
 * The session's status as the session service knows it (it may have been ended there, by its own
 * `POST /sessions/{id}/end`). Undefined when it does not know the session yet (the start command is
 * still on its way) or cannot be asked: this service's own record then decides.
 */
export async function remoteStatus(
  deps: AgentDeps,
  orgId: string,
  sessionId: string,
  requestId: string,
  log: Logger,
): Promise<SessionStatus | undefined> {
  try {
    const state = await rpcRequest(
      deps.nc,
      sessionRpc.get,
      { orgId, sessionId },
      { timeoutMs: 2_000, requestId },
    );
    return state.status;
  } catch (err) {
    if (!(err instanceof NotFoundError)) {
      log.warn({ err: (err as Error).message, sessionId }, 'session service not asked; using our own record');
    }
    return undefined;
  }
}
