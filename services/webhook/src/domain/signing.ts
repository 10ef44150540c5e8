import { createHmac, randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, type KeyRing } from '@platform/kit';
import type { SealedSecret } from '../models/endpoint.ts';

/**
 * Standard Webhooks 1.0 signing. A secret is `whsec_` + base64 of 32 random bytes; the HMAC key is
 * the decoded bytes. The signature is `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`;
 * several secrets (during a rotation's grace period) give several space-separated signatures.
 */
const prefix = 'whsec_';

export function newSecret(): string {
  return prefix + randomBytes(32).toString('base64');
}

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(prefix.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string) {
  return secrets.map((s) => sign(s, id, timestampSeconds, body)).join(' ');
}

/** The endpoint id is the AAD, so a sealed secret copied onto another endpoint does not decrypt. */
export function sealSecret(ring: KeyRing, endpointId: string, secret: string): string {
  return encryptSecret(ring, secret, endpointId);
}

export function openSecret(ring: KeyRing, endpointId: string, sealed: string): string {
  return decryptSecret(ring, sealed, endpointId);
}

/** The secrets that sign now: the current one and those still in their grace period. */
export function signingSecrets(ring: KeyRing, endpointId: string, secrets: SealedSecret[], now = new Date()) {
  return secrets
    .filter((s) => !s.expiresAt || s.expiresAt > now)
    .map((s) => openSecret(ring, endpointId, s.sealed));
}
