import { AppError, ConflictError } from '@platform/kit';
import type { IntegrationDeps } from '../deps.ts';
import { findIntegration } from '../integrations/registry.ts';
import type { IntegrationDefinition } from '../integrations/types.ts';
import type { ConnectionDoc } from '../models/connection.ts';
import { openCredentials } from './credentials.ts';

export interface LoadedConnection {
  def: IntegrationDefinition<unknown, unknown>;
  credentials: unknown;
  settings: unknown;
}

/** The integration of a stored connection, with its credentials decrypted and both parts parsed. */
export function loadIntegration(deps: IntegrationDeps, doc: ConnectionDoc): LoadedConnection {
  if (doc.status === 'revoked' || !doc.credentialsSealed) {
    throw new ConflictError('The connection is revoked; give it new credentials to use it again');
  }
  const def = findIntegration(doc.integrationId);
  if (!def) {
    throw new AppError(
      500,
      'internal',
      'Unknown integration',
      `Integration "${doc.integrationId}" is no longer in the catalog`,
    );
  }
  const stored = openCredentials(deps.config.CREDENTIALS_KEYS, doc);
  const credentials = def.credentials.safeParse(stored);
  const settings = def.settings.safeParse(doc.settings ?? {});
  if (!credentials.success || !settings.success) {
    // Stored before a schema change: the connection needs new credentials or settings.
    throw new ConflictError(
      `The connection's stored ${credentials.success ? 'settings' : 'credentials'} no longer fit the integration; update them`,
    );
  }
  return { def, credentials: credentials.data, settings: settings.data };
}
