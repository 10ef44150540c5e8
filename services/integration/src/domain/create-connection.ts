import type { z } from 'zod';
import {
  connectionEvents,
  type Connection,
  type CreateConnectionBody,
  type Identity,
} from '@platform/contracts';
import { ConflictError, ValidationError, withIdempotency, type Logger } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { findIntegration } from '../integrations/registry.ts';
import {
  connectionModel,
  isDuplicateKey,
  newConnectionId,
  type ConnectionDoc,
} from '../models/connection.ts';
import { idempotencyFingerprint, parseConnectionInput, sealCredentials } from './credentials.ts';
import { requireWriter } from './roles.ts';
import { refuseIfPermanentlyFailed, verifyCredentials } from './verify.ts';
import { toConnection } from './views.ts';

type Body = z.infer<typeof CreateConnectionBody>;

/**
 * Creates a connection: credentials and settings validated against the integration, verified with
 * its test call (bad credentials → 400, nothing stored; the third party unavailable → stored as
 * `failing` with the reason), encrypted, and announced with evt.connection.created.
 */
export async function createConnection(
  deps: IntegrationDeps,
  identity: Identity,
  body: Body,
  request: { idempotencyKey?: string; requestId: string; log: Logger },
): Promise<Connection> {
  requireWriter(identity);
  const ring = deps.config.CREDENTIALS_KEYS;
  const { result } = await withIdempotency(
    deps.db,
    {
      orgId: identity.orgId,
      scope: 'connections.create',
      key: request.idempotencyKey,
      request: idempotencyFingerprint(ring, body),
    },
    () => create(deps, identity, body, request),
  );
  return result;
}

async function create(
  deps: IntegrationDeps,
  identity: Identity,
  body: Body,
  request: { requestId: string; log: Logger },
): Promise<Connection> {
  const def = findIntegration(body.integrationId);
  if (!def) {
    throw new ValidationError([
      { field: 'integrationId', message: 'is not an integration of the catalog', location: 'body' },
    ]);
  }
  const input = parseConnectionInput(def, body.credentials, body.settings, deps.config.ALLOW_PRIVATE_NETWORK);
  const model = connectionModel(deps.db);
  if (await model.exists({ orgId: identity.orgId, name: body.name })) {
    throw new ConflictError(`A connection named "${body.name}" exists`);
  }
  const id = newConnectionId();
  const now = new Date();
  let status: ConnectionDoc['status'] = 'active';
  let statusReason: string | null = null;
  let lastTestedAt: Date | null = null;
  if (body.verify) {
    const result = await verifyCredentials(deps, def, {
      connectionId: id,
      credentials: input.credentials,
      settings: input.settings,
      log: request.log,
    });
    refuseIfPermanentlyFailed(result);
    if (result.verified) lastTestedAt = now;
    if (!result.ok) {
      status = 'failing';
      statusReason = result.message;
    }
  }
  let doc: ConnectionDoc;
  try {
    doc = (
      await model.create({
        _id: id,
        orgId: identity.orgId,
        integrationId: def.id,
        name: body.name,
        authKind: input.authKind,
        settings: input.settings,
        ...sealCredentials(deps.config.CREDENTIALS_KEYS, id, input.credentials),
        status,
        statusReason,
        lastTestedAt,
        createdBy: identity.userId ?? identity.apiKeyId ?? null,
        createdAt: now,
        updatedAt: now,
      })
    ).toObject();
  } catch (err) {
    if (isDuplicateKey(err)) {
      throw new ConflictError(`A connection named "${body.name}" exists`);
    }
    throw err;
  }
  const ref = { connectionId: id, integrationId: def.id, name: doc.name };
  await deps.outbox.publish(connectionEvents.created, identity.orgId, ref, { requestId: request.requestId });
  if (status === 'failing') {
    await deps.outbox.publish(
      connectionEvents.failing,
      identity.orgId,
      { ...ref, reason: statusReason ?? 'the test call failed' },
      { requestId: request.requestId },
    );
  }
  return toConnection(doc);
}
