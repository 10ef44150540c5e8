import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { decryptSecret, encryptSecret, type KeyRing } from '@platform/kit';

/** A new per-workflow webhook secret (shown once) and its sealed form for storage. */
export function newWebhookSecret(ring: KeyRing, workflowId: string): { secret: string; sealed: string } {
  const secret = `whs_${randomBytes(24).toString('base64url')}`;
  return { secret, sealed: encryptSecret(ring, secret, workflowId) };
}

const digest = (s: string | Buffer) => createHash('sha256').update(s).digest();

/**
 * A hook call proves it knows the secret by `X-Signature-256: sha256=<hex HMAC-SHA256(secret, raw
 * body)>` (GitHub's form) or by `X-Webhook-Token: <secret>`. Comparisons take constant time.
 */
export function verifyHookCall(
  ring: KeyRing,
  sealed: string,
  workflowId: string,
  rawBody: Buffer,
  signatureHeader: string | undefined,
  tokenHeader: string | undefined,
): boolean {
  const secret = decryptSecret(ring, sealed, workflowId);
  if (signatureHeader) {
    const expected = `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
    return timingSafeEqual(digest(signatureHeader.trim().toLowerCase()), digest(expected));
  }
  if (tokenHeader) return timingSafeEqual(digest(tokenHeader.trim()), digest(secret));
  return false;
}
