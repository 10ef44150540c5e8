import type { z } from 'zod';
import type { Identity, RotateSecretBody, RotateSecretResponse } from '@platform/contracts';
import { ConflictError } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { endpointModel, type SealedSecret } from '../models/endpoint.ts';
import { requireWriter } from './access.ts';
import { findEndpoint } from './get-endpoints.ts';
import { newSecret, sealSecret } from './signing.ts';

/** At most this many secrets sign at once (the new one and previous ones in their grace period). */
const maxSigningSecrets = 3;

/**
 * Makes a new secret. The current one keeps signing until the grace period ends, so receivers can
 * switch without dropping deliveries: meanwhile `webhook-signature` carries a signature per secret.
 */
export async function rotateSecret(
  deps: WebhookDeps,
  identity: Identity,
  id: string,
  input: z.infer<typeof RotateSecretBody>,
): Promise<z.infer<typeof RotateSecretResponse>> {
  requireWriter(identity);
  const endpoint = await findEndpoint(deps, identity.orgId, id);
  const now = new Date();
  const graceMs =
    input.gracePeriodSeconds !== undefined
      ? input.gracePeriodSeconds * 1000
      : deps.config.WEBHOOK_SECRET_GRACE;
  const expiresAt = graceMs > 0 ? new Date(now.getTime() + graceMs) : null;
  const previous: SealedSecret[] = endpoint.secrets
    .filter((s) => !s.expiresAt || s.expiresAt > now)
    .map((s) => ({
      ...s,
      expiresAt: s.expiresAt && expiresAt && s.expiresAt < expiresAt ? s.expiresAt : expiresAt,
    }))
    .filter((s) => s.expiresAt !== null);
  const secret = newSecret();
  const secrets = [
    { sealed: sealSecret(deps.keyRing, id, secret), createdAt: now, expiresAt: null },
    ...previous,
  ].slice(0, maxSigningSecrets);
  // Compare-and-set on the secrets read, so two rotations at once cannot lose one.
  const { matchedCount } = await endpointModel(deps.db).updateOne(
    { _id: id, orgId: identity.orgId, secretRotatedAt: endpoint.secretRotatedAt },
    { $set: { secrets, secretRotatedAt: now, updatedAt: now } },
  );
  if (matchedCount === 0) throw new ConflictError('The secret was rotated at the same time; try again');
  return {
    id,
    secret,
    previousSecretExpiresAt: expiresAt && previous.length > 0 ? expiresAt.toISOString() : null,
  };
}
