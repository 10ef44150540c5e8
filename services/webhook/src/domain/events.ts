import type { z } from 'zod';
import type { EventListQuery, Identity, PlatformEvent } from '@platform/contracts';
import { NotFoundError, paginate, type Page } from '@platform/kit';
import type { WebhookDeps } from '../deps.ts';
import { eventModel, type EventDoc } from '../models/event.ts';
import { toEvent } from './views.ts';

/** The organization's recent events (WEBHOOK_RETENTION), newest first, optionally of one type. */
export async function listEvents(
  deps: WebhookDeps,
  identity: Identity,
  query: z.infer<typeof EventListQuery>,
): Promise<Page<PlatformEvent>> {
  const filter = { orgId: identity.orgId, ...(query.type ? { type: query.type } : {}) };
  return paginate(eventModel(deps.db), filter, query, toEvent);
}

export async function getEvent(deps: WebhookDeps, identity: Identity, id: string): Promise<PlatformEvent> {
  const doc = await eventModel(deps.db).findOne({ _id: id, orgId: identity.orgId }).lean<EventDoc>();
  if (!doc) throw new NotFoundError('No such event (events are kept for a limited time)');
  return toEvent(doc);
}
