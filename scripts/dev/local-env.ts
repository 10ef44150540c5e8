import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Secrets for the local run, generated once into .data/local-secrets.json (never committed) so that
 * tokens and encrypted data survive restarts. Production takes them from Kubernetes Secrets.
 */
export function localSecrets(dataDir: string): Record<string, string> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'local-secrets.json');
  const existing = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>) : {};
  // Secrets added by later versions are generated into an existing file; existing ones are kept.
  const secrets = {
    INTERNAL_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    KEY_ENCRYPTION_KEYS: `local1:${randomBytes(32).toString('base64')}`,
    CREDENTIALS_KEYS: `local1:${randomBytes(32).toString('base64')}`,
    WEBHOOK_SECRETS_KEYS: `local1:${randomBytes(32).toString('base64')}`,
    BOOTSTRAP_ADMIN_PASSWORD: `admin-${randomBytes(9).toString('base64url')}`,
    ...existing,
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
