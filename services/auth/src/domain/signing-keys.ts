import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { randomUUID } from 'node:crypto';
import type { Connection } from 'mongoose';
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
