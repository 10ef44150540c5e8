// Rotates the access-token signing key: `node --import tsx services/auth/src/cli/rotate-signing-key.ts`
// with the auth service's MONGO_URL, MONGO_DB and KEY_ENCRYPTION_KEYS. The new key signs from the
// next key reload of each auth replica (SIGNING_KEY_CACHE_SECONDS); the previous one stays in the
// JWKS until every token it signed has expired, so nobody is logged out.
import { baseEnv, ConfigError, connectMongo, createLogger, loadConfig } from '@platform/kit';
import { authEnv } from '../config.ts';
import { rotateSigningKey } from '../domain/signing-keys.ts';

const shape = {
  MONGO_URL: baseEnv.MONGO_URL,
  MONGO_DB: authEnv.MONGO_DB,
  KEY_ENCRYPTION_KEYS: authEnv.KEY_ENCRYPTION_KEYS,
};

try {
  const config = loadConfig(shape);
  const db = await connectMongo(
    config.MONGO_URL,
    config.MONGO_DB,
    createLogger('rotate-signing-key', 'silent'),
  );
  try {
    const { kid, retired } = await rotateSigningKey(db, config.KEY_ENCRYPTION_KEYS);
    process.stdout.write(`${JSON.stringify({ activeKid: kid, retiredKid: retired })}\n`);
  } finally {
    await db.close();
  }
} catch (err) {
  console.error(
    err instanceof ConfigError ? err.message : `could not rotate the signing key: ${(err as Error).message}`,
  );
  process.exit(1);
}
