import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  baseEnv,
  ConfigError,
  keyRingFromEnv,
  loadConfig,
  decryptSecret,
  encryptSecret,
} from '../src/index.ts';

describe('config', () => {
  it('parses defaults and names every bad variable', () => {
    const ok = loadConfig({ ...baseEnv }, { INTERNAL_TOKEN_SECRET: 'x'.repeat(32) });
    expect(ok.PORT).toBe(3000);
    try {
      loadConfig(
        { ...baseEnv, EXTRA: z.coerce.number() },
        { PORT: 'abc', INTERNAL_TOKEN_SECRET: 'short', EXTRA: 'n' },
      );
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as Error).message;
      expect(message).toContain('PORT');
      expect(message).toContain('INTERNAL_TOKEN_SECRET');
      expect(message).toContain('EXTRA');
    }
  });
});

describe('secrets at rest', () => {
  const ring = keyRingFromEnv.parse(
    `new:${Buffer.alloc(32, 2).toString('base64')},old:${Buffer.alloc(32, 1).toString('base64')}`,
  );
  it('round-trips under the primary key and decrypts values of an older key', () => {
    const sealed = encryptSecret(ring, 'p@ss', 'aad');
    expect(sealed).not.toContain('p@ss');
    expect(sealed.split('.')[1]).toBe('new');
    expect(decryptSecret(ring, sealed, 'aad')).toBe('p@ss');
    const oldRing = keyRingFromEnv.parse(`old:${Buffer.alloc(32, 1).toString('base64')}`);
    expect(decryptSecret(ring, encryptSecret(oldRing, 'v'), '')).toBe('v');
    expect(() => decryptSecret(ring, sealed, 'other-aad')).toThrow();
  });
  it('rejects a malformed key ring naming the format', () => {
    expect(keyRingFromEnv.safeParse('k:short').success).toBe(false);
  });
});
