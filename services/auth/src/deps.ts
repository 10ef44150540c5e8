import type { Connection } from 'mongoose';
import type { z } from 'zod';
import type { Logger } from '@platform/kit';
import type { authEnv } from './config.ts';
import type { RevocationPublisher } from './domain/revocations.ts';
import type { ActiveSigningKey } from './domain/signing-keys.ts';
import type { TokenSettings } from './domain/tokens.ts';

export type AuthConfig = z.infer<z.ZodObject<typeof authEnv>> & {
  INTERNAL_TOKEN_SECRET: string;
  BODY_LIMIT: string;
};

/** What the auth domain functions need; built once in service.ts. */
export interface AuthDeps {
  config: AuthConfig;
  db: Connection;
  logger: Logger;
  tokens: TokenSettings;
  signingKey: () => Promise<ActiveSigningKey>;
  revocations: RevocationPublisher;
}
