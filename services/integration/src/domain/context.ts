import type { Logger } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { ActionHttp } from '../integrations/outbound.ts';
import type { ActionContext, IntegrationDefinition } from '../integrations/types.ts';

/** The context an action or test call runs in: the connection's secrets, its deadline, outbound HTTP. */
export function actionContext(
  deps: IntegrationDeps,
  def: IntegrationDefinition<unknown, unknown>,
  call: {
    connectionId: string;
    credentials: unknown;
    settings: unknown;
    deadline: number;
    requestId?: string;
    log: Logger;
  },
): ActionContext<unknown, unknown> {
  const { config } = deps;
  return {
    credentials: call.credentials,
    settings: call.settings,
    env: config as unknown as Record<string, unknown>,
    http: new ActionHttp(def.who ?? def.name, {
      allowPrivateNetwork: config.ALLOW_PRIVATE_NETWORK,
      deadline: call.deadline,
      maxResponseBytes: config.MAX_RESPONSE_BYTES,
      userAgent: config.OUTBOUND_USER_AGENT,
    }),
    allowPrivateNetwork: config.ALLOW_PRIVATE_NETWORK,
    deadline: call.deadline,
    connectionId: call.connectionId,
    requestId: call.requestId,
    log: call.log,
  };
}

/** Rejects with `onTimeout()` when the deadline passes first (for transports without their own timeout). */
export async function withDeadline<T>(
  work: Promise<T>,
  deadline: number,
  onTimeout: () => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(onTimeout()), Math.max(0, deadline - Date.now()));
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
