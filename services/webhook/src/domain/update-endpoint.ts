import type { z } from 'zod';
import type { Identity, UpdateWebhookBody, WebhookEndpoint } from '@platform/contracts';
import { NotFoundError } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { endpointModel, type EndpointDoc } from '../models/endpoint.ts';
import { requireWriter } from './access.ts';
import { checkEndpointUrl, normalizeEvents } from './endpoint-url.ts';
import { toEndpoint } from './views.ts';

/**
 * Changes an endpoint. Enabling it clears why it was disabled and its failure streak, so it gets a
 * fresh "failing for days" period; disabling it by hand records `manual`.
 */
export async function updateEndpoint(
  deps: WebhookDeps,
  identity: Identity,
  id: string,
  input: z.infer<typeof UpdateWebhookBody>,
): Promise<WebhookEndpoint> {
  requireWriter(identity);
  const set: Partial<EndpointDoc> = { updatedAt: new Date() };
  if (input.url !== undefined) set.url = checkEndpointUrl(input.url, deps.config.ALLOW_PRIVATE_NETWORK);
  if (input.events !== undefined) set.events = normalizeEvents(input.events);
  if (input.description !== undefined) set.description = input.description;
  if (input.enabled === true) Object.assign(set, { enabled: true, disabledReason: null, failingSince: null });
  if (input.enabled === false) Object.assign(set, { enabled: false, disabledReason: 'manual' });
  const doc = await endpointModel(deps.db)
    .findOneAndUpdate({ _id: id, orgId: identity.orgId }, { $set: set }, { new: true })
    .lean<EndpointDoc>();
  if (!doc) throw new NotFoundError('No such webhook endpoint');
  return toEndpoint(doc);
}
