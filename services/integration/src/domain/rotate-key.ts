import type { Connection } from 'mongoose';
import { decryptSecret, encryptSecret, keyIdOf, type KeyRing, type Logger } from '@platform/kit';
import { connectionModel, type ConnectionDoc } from '../models/connection.ts';

export interface RotationReport {
  primaryKeyId: string;
  rotated: number;
  /** Connections whose key is not in the ring (or whose value does not decrypt): left as they are. */
  failed: Array<{ connectionId: string; keyId: string | null }>;
}

/**
 * Re-encrypts every connection's credentials that are not under the primary key of the ring. Each
 * update is conditional on the sealed value it read, so a concurrent PATCH is never overwritten
 * (that connection is simply under the primary key already). Safe to run again; it resumes.
 */
export async function rotateCredentialsKey(
  db: Connection,
  ring: KeyRing,
  logger: Logger,
): Promise<RotationReport> {
  const model = connectionModel(db);
  const report: RotationReport = { primaryKeyId: ring.primary.id, rotated: 0, failed: [] };
  const failedIds = new Set<string>();
  for (;;) {
    const batch = await model
      .find({ keyId: { $nin: [ring.primary.id, null] }, _id: { $nin: [...failedIds] } })
      .sort({ _id: 1 })
      .limit(200)
      .lean<ConnectionDoc[]>();
    if (batch.length === 0) break;
    for (const doc of batch) {
      const sealed = doc.credentialsSealed;
      if (!sealed) continue;
      let plaintext: string;
      try {
        plaintext = decryptSecret(ring, sealed, doc._id);
      } catch {
        failedIds.add(doc._id);
        report.failed.push({ connectionId: doc._id, keyId: keyIdOf(sealed) ?? null });
        logger.warn(
          { connectionId: doc._id, keyId: keyIdOf(sealed) },
          'credentials do not decrypt with this ring',
        );
        continue;
      }
      const resealed = encryptSecret(ring, plaintext, doc._id);
      const { modifiedCount } = await model.updateOne(
        { _id: doc._id, orgId: doc.orgId, credentialsSealed: sealed },
        { $set: { credentialsSealed: resealed, keyId: ring.primary.id } },
      );
      report.rotated += modifiedCount;
    }
  }
  return report;
}
