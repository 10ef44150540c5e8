import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { CreateWebhookBody, Identity, WebhookEndpointWithSecret } from '@platform/contracts';
import { ConflictError, withIdempotency } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { endpointModel } from '../models/endpoint.ts';
import { requireWriter } from './access.ts';
import { checkEndpointUrl, normalizeEvents } from './endpoint-url.ts';
import { newSecret, openSecret, sealSecret } from './signing.ts';
import { toEndpoint } from './views.ts';

/**
 * Registers an endpoint and answers its signing secret, the only time it is shown. With an
 * Idempotency-Key the stored answer holds the secret sealed, never in clear, and a replay unseals it.
 */
export async function createEndpoint(
  deps: WebhookDeps,
  identity: Identity,
  input: z.infer<typeof CreateWebhookBody>,
  idempotencyKey: string | undefined,
): Promise<WebhookEndpointWithSecret> {
  requireWriter(identity);
  const url = checkEndpointUrl(input.url, deps.config.ALLOW_PRIVATE_NETWORK);
  const { result } = await withIdempotency(
    deps.db,
    { orgId: identity.orgId, scope: 'webhook.create', key: idempotencyKey, request: input },
    async () => {
      const endpoints = endpointModel(deps.db);
      const count = await endpoints.countDocuments({ orgId: identity.orgId });
      if (count >= deps.config.WEBHOOK_MAX_ENDPOINTS) {
        throw new ConflictError(
          `An organization has at most ${deps.config.WEBHOOK_MAX_ENDPOINTS} webhook endpoints`,
        );
      }
      const id = `wh_${randomUUID().replace(/-/g, '')}`;
      const now = new Date();
      const sealed = sealSecret(deps.keyRing, id, newSecret());
      const enabled = input.enabled ?? true;
      const doc = await endpoints.create({
        _id: id,
        orgId: identity.orgId,
        url,
        events: normalizeEvents(input.events),
        description: input.description ?? null,
        enabled,
        disabledReason: enabled ? null : 'manual',
        secrets: [{ sealed, createdAt: now, expiresAt: null }],
        createdAt: now,
        updatedAt: now,
      });
      return { endpoint: toEndpoint(doc.toObject()), sealed };
    },
  );
  return { ...result.endpoint, secret: openSecret(deps.keyRing, result.endpoint.id, result.sealed) };
}
