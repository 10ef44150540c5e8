import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * AES-256-GCM envelope with a key id, so keys can be rotated: `v1.<kid>.<iv>.<tag>.<ciphertext>`
 * (base64url parts). The key ring comes from config as `kid:base64key,kid2:base64key` where the
 * first entry encrypts and all of them decrypt.
 */
export interface KeyRing {
  primary: { id: string; key: Buffer };
  keys: Map<string, Buffer>;
}

export const keyRingFromEnv = z
  .string()
  .min(1)
  .transform((value, ctx): KeyRing => {
    const keys = new Map<string, Buffer>();
    let primary: KeyRing['primary'] | undefined;
    for (const entry of value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [id, b64] = entry.split(':');
      const key = b64 ? Buffer.from(b64, 'base64') : Buffer.alloc(0);
      if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32) {
        ctx.addIssue({ code: 'custom', message: 'each entry must be `keyId:base64 of 32 random bytes`' });
        return z.NEVER;
      }
      keys.set(id, key);
      primary ??= { id, key };
    }
    if (!primary) {
      ctx.addIssue({ code: 'custom', message: 'at least one key is required' });
      return z.NEVER;
    }
    return { primary, keys };
  });

export function encryptSecret(ring: KeyRing, plaintext: string, aad = ''): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', ring.primary.key, iv);
  cipher.setAAD(Buffer.from(aad));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [
    'v1',
    ring.primary.id,
    iv.toString('base64url'),
    tag.toString('base64url'),
    data.toString('base64url'),
  ].join('.');
}

export function decryptSecret(ring: KeyRing, sealed: string, aad = ''): string {
  const [version, kid, iv, tag, data] = sealed.split('.');
  const key = kid ? ring.keys.get(kid) : undefined;
  if (version !== 'v1' || !key || !iv || !tag || data === undefined) {
    throw new Error(`cannot decrypt: unknown key id "${kid ?? ''}" or malformed value`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

/** The key id a sealed value was encrypted with (rotation re-encrypts values not under the primary). */
export function keyIdOf(sealed: string): string | undefined {
  return sealed.split('.')[1];
}
