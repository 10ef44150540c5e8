import type { NatsConnection } from '@nats-io/transport-node';
import type { ChatStreamRequest, RunActionReply } from '@platform/contracts';
import { ValidationError, type Logger } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { streamChatCompletion } from '../integrations/openai-stream.ts';
import type { OpenAiCtx } from '../integrations/openai.ts';
import { executeCall } from './execute-call.ts';

/**
 * svc.integration.chat-stream: a streamed chat completion. Each chunk is published to `deliverTo`
 * as `{seq, chunk}` as soon as it arrives; the reply is the whole completion, the same shape as the
 * `chat.completions` action's output, so the reply alone is enough to continue a conversation.
 */
export async function chatStream(
  deps: IntegrationDeps & { nc: NatsConnection },
  req: ChatStreamRequest,
  log: Logger,
): Promise<RunActionReply> {
  const { value, doc, durationMs } = await executeCall(deps, req, log, (ctx, def) => {
    if (def.id !== 'openai') {
      throw new ValidationError([
        { field: 'connectionId', message: 'is not an OpenAI-compatible connection' },
      ]);
    }
    let seq = 0;
    return streamChatCompletion(
      ctx as OpenAiCtx,
      req.input,
      (chunk) => deps.nc.publish(req.deliverTo, JSON.stringify({ seq: seq++, chunk })),
      // The event stream repeats ids and field names in every chunk: it may be far larger than the
      // completion it assembles into (whose size the reply check bounds).
      { maxBytes: deps.config.MAX_RESPONSE_BYTES * 32, userAgent: deps.config.OUTBOUND_USER_AGENT },
    );
  });
  return {
    output: value,
    connectionId: doc._id,
    integrationId: doc.integrationId,
    action: 'chat.completions',
    durationMs,
  };
}
