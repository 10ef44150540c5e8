import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt with a per-password salt: `scrypt$N$r$p$salt$hash` (base64url). */
export function hashPassword(password: string, N: number): Promise<string> {
  const salt = randomBytes(16);
  return new Promise((resolve, reject) =>
    scrypt(password, salt, 32, { N, r: 8, p: 1, maxmem: 256 * N * 8 }, (err, key) =>
      err
        ? reject(err)
        : resolve(`scrypt$${N}$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`),
    ),
  );
}

export function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return Promise.resolve(false);
  const expected = Buffer.from(hash, 'base64url');
  const N = Number(n);
  return new Promise((resolve, reject) =>
    scrypt(
      password,
      Buffer.from(salt, 'base64url'),
      expected.length,
      { N, r: Number(r), p: Number(p), maxmem: 256 * N * 8 },
      (err, key) => (err ? reject(err) : resolve(timingSafeEqual(key, expected))),
    ),
  );
}

/** A hash of a fixed password, compared against when the email is unknown, so timing does not tell. */
let dummy: Promise<string> | undefined;
export function dummyHash(N: number): Promise<string> {
  dummy ??= hashPassword('not-a-real-password', N);
  return dummy;
}
