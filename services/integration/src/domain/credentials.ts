import { createHmac } from 'node:crypto';
import type { ZodType } from 'zod';
import type { AuthKind, FieldError } from '@platform/contracts';
import {
  AppError,
  checkOutboundUrl,
  decryptSecret,
  encryptSecret,
  keyIdOf,
  toFieldErrors,
  ValidationError,
  type KeyRing,
} from '@platform/kit';
import type { IntegrationDefinition } from '../integrations/types.ts';
import type { ConnectionDoc } from '../models/connection.ts';

/** Parses a part against a schema; field errors are prefixed with the part's name (`credentials.apiKey`). */
function parsePart<T>(
  schema: ZodType<T>,
  value: unknown,
  prefix: string,
  errors: FieldError[],
): T | undefined {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const e of toFieldErrors(result.error.issues, 'body')) {
    errors.push({ ...e, field: e.field === '(root)' ? prefix : `${prefix}.${e.field}` });
  }
  return undefined;
}

/** http(s) URLs anywhere in a value, with their dotted path. */
function urlsIn(value: unknown, path: string): Array<{ field: string; url: string }> {
  if (typeof value === 'string') return /^https?:\/\//i.test(value) ? [{ field: path, url: value }] : [];
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => urlsIn(v, `${path}.${k}`));
  }
  return [];
}

export interface ConnectionInput {
  credentials: unknown;
  settings: Record<string, unknown>;
  authKind: AuthKind;
}

/**
 * Validates credentials and settings against the integration's schemas (one 400 naming every bad
 * field) and refuses URLs that name a private address when the policy forbids them, before any call.
 * With several auth kinds, credentials without `authKind` use `defaultAuthKind` (the integration's
 * main kind on create, the connection's current kind on update).
 */
export function parseConnectionInput(
  def: IntegrationDefinition<unknown, unknown>,
  rawCredentials: Record<string, unknown>,
  rawSettings: Record<string, unknown> | undefined,
  allowPrivateNetwork: boolean,
  defaultAuthKind: AuthKind = def.authKinds[0],
): ConnectionInput {
  const withKind =
    def.authKinds.length > 1 && rawCredentials.authKind === undefined
      ? { authKind: defaultAuthKind, ...rawCredentials }
      : rawCredentials;
  const errors: FieldError[] = [];
  const credentials = parsePart(def.credentials, withKind, 'credentials', errors);
  const settings = parsePart(def.settings, rawSettings ?? {}, 'settings', errors) as
    Record<string, unknown> | undefined;
  if (errors.length > 0) throw new ValidationError(errors);
  for (const { field, url } of [...urlsIn(credentials, 'credentials'), ...urlsIn(settings, 'settings')]) {
    try {
      checkOutboundUrl(url, allowPrivateNetwork);
    } catch (err) {
      errors.push({ field, message: (err as Error).message.replace(url, '(the URL)'), location: 'body' });
    }
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return {
    credentials,
    settings: settings ?? {},
    authKind: def.authKindOf ? def.authKindOf(credentials) : def.authKinds[0],
  };
}

/** AES-256-GCM under the primary key; the connection id is the additional data. */
export function sealCredentials(ring: KeyRing, connectionId: string, credentials: unknown) {
  const credentialsSealed = encryptSecret(ring, JSON.stringify(credentials), connectionId);
  return { credentialsSealed, keyId: keyIdOf(credentialsSealed) ?? ring.primary.id };
}

export function openCredentials(
  ring: KeyRing,
  doc: Pick<ConnectionDoc, '_id' | 'credentialsSealed'>,
): unknown {
  if (!doc.credentialsSealed)
    throw new AppError(409, 'conflict', 'Conflict', 'The connection has no credentials');
  try {
    return JSON.parse(decryptSecret(ring, doc.credentialsSealed, doc._id)) as unknown;
  } catch {
    // Never the value or the cipher's message: only which key would be needed.
    throw new AppError(
      500,
      'internal',
      'Credentials unreadable',
      `The connection's credentials cannot be decrypted with the configured keys (key id "${keyIdOf(doc.credentialsSealed) ?? '?'}")`,
    );
  }
}

/**
 * What an Idempotency-Key replay compares: the body with the credentials replaced by an HMAC under
 * the credentials key, so the idempotency record holds nothing that helps guess a secret.
 */
export function idempotencyFingerprint(ring: KeyRing, body: { credentials: unknown }) {
  const digest = createHmac('sha256', ring.primary.key)
    .update(JSON.stringify(body.credentials))
    .digest('hex');
  return { ...body, credentials: digest };
}
