import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
import type { Jwks } from '@platform/contracts';
import { decryptSecret, encryptSecret, type KeyRing } from '@platform/kit';
import { activeKeyPointerModel, signingKeyModel } from '../models/signing-key.ts';

export interface ActiveSigningKey {
  kid: string;
  privateKey: CryptoKey;
}

async function createKey(conn: Connection, ring: KeyRing) {
  const kid = `k_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' };
  const privateJwk = await exportJWK(privateKey);
  await signingKeyModel(conn).create({
    _id: kid,
    status: 'active',
    publicJwk,
    privateJwkSealed: encryptSecret(ring, JSON.stringify(privateJwk), kid),
  });
  return kid;
}

/**
 * The key that signs access tokens, created on first start. Replicas race to insert the pointer
 * document; the loser drops its key and uses the winner's.
 */
export async function loadActiveSigningKey(conn: Connection, ring: KeyRing): Promise<ActiveSigningKey> {
  const pointers = activeKeyPointerModel(conn);
  let pointer = await pointers.findById('active').lean();
  if (!pointer) {
    const kid = await createKey(conn, ring);
    try {
      await pointers.create({ _id: 'active', kid });
    } catch {
      await signingKeyModel(conn).deleteOne({ _id: kid });
    }
    pointer = await pointers.findById('active').lean();
  }
  const doc = await signingKeyModel(conn).findById(pointer!.kid).lean();
  if (!doc) throw new Error(`signing key ${pointer!.kid} is missing`);
  const jwk = JSON.parse(decryptSecret(ring, doc.privateJwkSealed, doc._id)) as JWK;
  return { kid: doc._id, privateKey: (await importJWK(jwk, 'EdDSA')) as CryptoKey };
}

/**
 * The signing key of this replica, re-read after `ttlMs` so that a rotation reaches every replica
 * within that time (the retired key stays in the JWKS long enough for what it signed meanwhile).
 */
export function signingKeyCache(conn: Connection, ring: KeyRing, ttlMs: number) {
  let key: Promise<ActiveSigningKey> | undefined;
  let loadedAt = 0;
  return () => {
    if (!key || Date.now() - loadedAt > ttlMs) {
      loadedAt = Date.now();
      const previous = key;
      key = loadActiveSigningKey(conn, ring).catch((err) => {
        key = previous;
        loadedAt = 0;
        if (previous) return previous;
        throw err;
      });
    }
    return key;
  };
}

/**
 * Makes a new signing key the active one and retires the previous one. Nobody is logged out: the
 * retired key stays in the JWKS until every token it signed has expired.
 */
export async function rotateSigningKey(
  conn: Connection,
  ring: KeyRing,
): Promise<{ kid: string; retired: string | null }> {
  const pointers = activeKeyPointerModel(conn);
  const current = await pointers.findById('active').lean();
  if (!current) {
    const key = await loadActiveSigningKey(conn, ring);
    return { kid: key.kid, retired: null };
  }
  const kid = await createKey(conn, ring);
  const swapped = await pointers.findOneAndUpdate(
    { _id: 'active', kid: current.kid },
    { $set: { kid, updatedAt: new Date() } },
  );
  if (!swapped) {
    await signingKeyModel(conn).deleteOne({ _id: kid });
    throw new Error('another rotation happened at the same time; nothing was changed by this one');
  }
  await signingKeyModel(conn).updateOne(
    { _id: current.kid },
    { $set: { status: 'retired', retiredAt: new Date() } },
  );
  return { kid, retired: current.kid };
}

/** Public keys that verify tokens: the active one and those retired less than `retentionMs` ago. */
export async function publicKeys(conn: Connection, retentionMs: number): Promise<Jwks> {
  const docs = await signingKeyModel(conn)
    .find({
      $or: [
        { status: 'active' },
        { status: 'retired', retiredAt: { $gt: new Date(Date.now() - retentionMs) } },
      ],
    })
    .sort({ createdAt: -1 })
    .lean();
  return { keys: docs.map((d) => d.publicJwk as Jwks['keys'][number]) };
}
