// Re-encrypts every connection's credentials under the primary (first) key of CREDENTIALS_KEYS:
//   node --import tsx services/integration/src/cli/rotate-credentials-key.ts
// with the integration service's MONGO_URL, MONGO_DB and CREDENTIALS_KEYS (new key first, the old
// ones after it). Prints a JSON report; exits 1 when a connection could not be re-encrypted (its key
// is missing from the ring), so the old key must not be removed yet. docs/integrations.md has the
// whole procedure.
import { destination, pino } from 'pino';
import { baseEnv, ConfigError, connectMongo, loadConfig } from '@platform/kit';
import { integrationEnv } from '../config.ts';
import { rotateCredentialsKey } from '../domain/rotate-key.ts';

const shape = {
  MONGO_URL: baseEnv.MONGO_URL,
  MONGO_DB: integrationEnv.MONGO_DB,
  CREDENTIALS_KEYS: integrationEnv.CREDENTIALS_KEYS,
};

try {
  const config = loadConfig(shape);
  // Logs go to stderr: stdout carries only the JSON report.
  const logger = pino({ level: 'warn', base: { service: 'rotate-credentials-key' } }, destination(2));
  const db = await connectMongo(config.MONGO_URL, config.MONGO_DB, logger);
  try {
    const report = await rotateCredentialsKey(db, config.CREDENTIALS_KEYS, logger);
    process.stdout.write(`${JSON.stringify(report)}\n`);
    if (report.failed.length > 0) process.exitCode = 1;
  } finally {
    await db.close();
  }
} catch (err) {
  console.error(
    err instanceof ConfigError
      ? err.message
      : `could not rotate the credentials key: ${(err as Error).message}`,
  );
  process.exit(1);
}
