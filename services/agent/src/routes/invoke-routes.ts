import type { Express, Request } from 'express';
import { agentRoutes, type Identity, type InvokeBody, type InvokeResult } from '@platform/contracts';
import {
  AppError,
  idempotencyKeyOf,
  mountRoute,
  sendProblem,
  withIdempotency,
  type Logger,
} from '@platform/kit';
import type { AgentDeps } from '../deps.ts';
import { recordClientDisconnection } from '../domain/client-disconnection.ts';
import { endByUser } from '../domain/end-conversation.ts';
import { invoke, ProviderFailedError, type InvokeSink } from '../domain/invoke.ts';
import { requireWriter } from '../domain/roles.ts';
import { EventStream } from './sse.ts';

const wantsStream = (req: Request, body: InvokeBody) =>
  body.stream || (req.header('accept') ?? '').toLowerCase().includes('text/event-stream');

/** Idempotency-Key: the same key and input (streamed or not) answers the first turn's result again. */
function idempotent(deps: AgentDeps, identity: Identity, agentId: string, body: InvokeBody, req: Request) {
  const { stream: _stream, ...request } = body;
  return <T>(run: () => Promise<T>) =>
    withIdempotency(
      deps.db,
      {
        orgId: identity.orgId,
        scope: 'agent.invoke',
        key: idempotencyKeyOf(req),
        request: { agentId, ...request },
      },
      run,
    );
}

const problemBase = 'https://docs.platform.example/problems/';

/** The `error` event's data: the problem+json the same failure gets without streaming. */
function problemOf(err: unknown, log: Logger) {
  if (err instanceof AppError) {
    const name = err.extra.type ?? err.kind.replace(/_/g, '-');
    return { type: problemBase + name, title: err.title, status: err.status, detail: err.message };
  }
  log.error({ err }, 'streamed turn failed');
  return {
    type: `${problemBase}internal-error`,
    title: 'Internal error',
    status: 500,
    detail: 'Something went wrong on our side; the request id helps support',
  };
}

export function mountInvokeRoutes(app: Express, deps: AgentDeps) {
  const secret = deps.config.INTERNAL_TOKEN_SECRET;

  mountRoute(
    app,
    agentRoutes.invoke,
    secret,
    async ({ identity, params, body, req, res, requestId, log }) => {
      requireWriter(identity);
      const once = idempotent(deps, identity, params.id, body, req);
      if (!wantsStream(req, body)) {
        try {
          return (await once(() => invoke(deps, identity, params.id, body, { requestId, log }))).result;
        } catch (err) {
          if (!(err instanceof ProviderFailedError)) throw err;
          res.setHeader('Session-Id', err.sessionId);
          sendProblem(res, 502, err.title, err.message, {
            typeName: 'model-provider-failed',
            instance: `/api/v1/sessions/${err.sessionId}`,
          });
          return;
        }
      }
      const stream = new EventStream(res, deps.config.SSE_HEARTBEAT_MS);
      let sessionId: string | undefined;
      // A client that leaves before the stream ends is a `disconnection` event, recorded once: with the
      // turn when it was gone by then, else on its own once the turn is over.
      let departureRecorded = false;
      const recordDeparture = async () => {
        if (!stream.closedByClient || departureRecorded || !sessionId) return;
        departureRecorded = true;
        await recordClientDisconnection(deps, identity.orgId, sessionId, requestId).catch((err: Error) =>
          log.warn({ err: err.message, sessionId }, 'could not record the disconnection of a client'),
        );
      };
      const sink: InvokeSink = {
        session: (info) => {
          sessionId = info.sessionId;
          stream.send('session', info);
        },
        message: (message) => stream.send('message', message),
        delta: (text) => stream.send('delta', { text }),
        toolCall: (call) => stream.send('tool_call', call),
        toolResult: (record) => stream.send('tool_result', record),
        clientGone: () => (departureRecorded = stream.closedByClient),
      };
      let result: InvokeResult;
      let replayed = false;
      try {
        ({ result, replayed } = await once(() =>
          invoke(deps, identity, params.id, body, { requestId, log, sink }),
        ));
      } catch (err) {
        if (!stream.isOpen) throw err; // nothing streamed yet: an ordinary problem+json
        await recordDeparture();
        const failed = err instanceof ProviderFailedError;
        stream.send('error', {
          ...problemOf(err, log),
          sessionId: sessionId ?? null,
          sessionStatus: failed ? 'Failed' : 'Active',
        });
        stream.end();
        return;
      }
      if (replayed) {
        // The first request's answer, told as a stream again.
        stream.send('session', {
          sessionId: result.sessionId,
          agentId: result.agentId,
          agentVersion: result.agentVersion,
          turn: result.turn,
        });
        stream.send('delta', { text: result.reply });
      }
      await recordDeparture();
      stream.send('done', result);
      stream.end();
    },
  );

  mountRoute(app, agentRoutes.endSession, secret, ({ identity, params, body, requestId }) => {
    requireWriter(identity);
    return endByUser(deps, identity.orgId, params.id, params.sessionId, body, requestId);
  });
}
