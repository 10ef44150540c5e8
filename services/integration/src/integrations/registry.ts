import type { ZodRawShape } from 'zod';
import { httpIntegration } from './http.ts';
import { openaiIntegration } from './openai.ts';
import { slackIntegration } from './slack.ts';
import { smtpIntegration } from './smtp.ts';
import { telegramIntegration } from './telegram.ts';
import { twilioIntegration } from './twilio.ts';
import type { IntegrationDefinition } from './types.ts';
import { webhookIntegration } from './webhook.ts';
import { whatsappIntegration } from './whatsapp.ts';

/** The catalog. Adding an integration: write its module, then add one line here. */
// Each module is typed by its own credentials and settings; the registry holds them all.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const integrations: IntegrationDefinition<any, any>[] = [
  httpIntegration,
  webhookIntegration,
  slackIntegration,
  telegramIntegration,
  whatsappIntegration,
  twilioIntegration,
  smtpIntegration,
  openaiIntegration,
];

const byId = new Map(integrations.map((i) => [i.id, i]));

export function findIntegration(id: string): IntegrationDefinition<unknown, unknown> | undefined {
  return byId.get(id);
}

/** The environment variables the modules declared (base URLs), for the service's config schema. */
export const integrationsEnv: ZodRawShape = Object.assign({}, ...integrations.map((i) => i.env ?? {}));
