import type { z } from 'zod';
import { connectionEvents, type Identity, type UpdateConnectionBody } from '@platform/contracts';
import { AppError, ConflictError, NotFoundError, ValidationError, type Logger } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { findIntegration } from '../integrations/registry.ts';
import { connectionModel, isDuplicateKey, type ConnectionDoc } from '../models/connection.ts';
import { openCredentials, parseConnectionInput, sealCredentials } from './credentials.ts';
import { findConnection } from './list-connections.ts';
import { requireWriter } from './roles.ts';
import { refuseIfPermanentlyFailed, verifyCredentials } from './verify.ts';
import { toConnection } from './views.ts';

type Body = z.infer<typeof UpdateConnectionBody>;

/**
 * PATCH /connections/{id}: rename; replace credentials and/or settings (validated and verified like
 * a create; the status is then what the test said, or active); or revoke (credentials erased).
 */
export async function updateConnection(
  deps: IntegrationDeps,
  identity: Identity,
  id: string,
  body: Body,
  request: { requestId: string; log: Logger },
) {
  requireWriter(identity);
  if (body.status === 'revoked' && body.credentials) {
    throw new ValidationError([
      { field: 'status', message: 'cannot revoke and give new credentials at once', location: 'body' },
    ]);
  }
  const doc = await findConnection(deps, identity.orgId, id);
  const now = new Date();
  const set: Partial<ConnectionDoc> = { updatedAt: now };
  if (body.name !== undefined && body.name !== doc.name) {
    const model = connectionModel(deps.db);
    if (await model.exists({ orgId: identity.orgId, name: body.name, _id: { $ne: doc._id } })) {
      throw new ConflictError(`A connection named "${body.name}" exists`);
    }
    set.name = body.name;
  }
  let failingReason: string | undefined;
  if (body.status === 'revoked') {
    Object.assign(set, {
      credentialsSealed: null,
      keyId: null,
      status: 'revoked',
      statusReason: 'revoked by a user',
    });
  }
  if (body.credentials || body.settings) {
    const def = findIntegration(doc.integrationId);
    if (!def)
      throw new AppError(
        500,
        'internal',
        'Unknown integration',
        `Integration "${doc.integrationId}" is gone`,
      );
    if (!body.credentials && !doc.credentialsSealed && body.status !== 'revoked') {
      throw new ValidationError([
        { field: 'credentials', message: 'is required: the connection is revoked', location: 'body' },
      ]);
    }
    const rawCredentials =
      body.credentials ?? (doc.credentialsSealed ? openCredentials(deps.config.CREDENTIALS_KEYS, doc) : {});
    const input = parseConnectionInput(
      def,
      rawCredentials as Record<string, unknown>,
      body.settings ?? doc.settings,
      deps.config.ALLOW_PRIVATE_NETWORK,
      doc.authKind,
    );
    set.settings = input.settings;
    if (body.status !== 'revoked') {
      if (body.credentials)
        Object.assign(set, sealCredentials(deps.config.CREDENTIALS_KEYS, doc._id, input.credentials));
      set.authKind = input.authKind;
      set.status = 'active';
      set.statusReason = null;
      if (body.verify) {
        const result = await verifyCredentials(deps, def, {
          connectionId: doc._id,
          credentials: input.credentials,
          settings: input.settings,
          log: request.log,
        });
        refuseIfPermanentlyFailed(result);
        if (result.verified) set.lastTestedAt = now;
        if (!result.ok) {
          set.status = 'failing';
          set.statusReason = result.message;
          failingReason = result.message ?? 'the test call failed';
        }
      }
    }
  }
  let updated: ConnectionDoc | null;
  try {
    updated = await connectionModel(deps.db)
      .findOneAndUpdate({ _id: doc._id, orgId: identity.orgId }, { $set: set }, { new: true })
      .lean<ConnectionDoc>();
  } catch (err) {
    if (isDuplicateKey(err)) throw new ConflictError(`A connection named "${body.name}" exists`);
    throw err;
  }
  if (!updated) throw new NotFoundError(`No connection "${id}" in this organization`);
  const ref = { connectionId: doc._id, integrationId: doc.integrationId, name: updated.name };
  const options = { requestId: request.requestId };
  if (body.status === 'revoked' && doc.status !== 'revoked') {
    await deps.outbox.publish(connectionEvents.revoked, identity.orgId, ref, options);
  }
  if (failingReason && doc.status !== 'failing') {
    await deps.outbox.publish(
      connectionEvents.failing,
      identity.orgId,
      { ...ref, reason: failingReason },
      options,
    );
  }
  return toConnection(updated);
}
