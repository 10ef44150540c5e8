import { randomBytes } from 'node:crypto';
import { startMongo, startNats, type InfraServer } from './infra.ts';
import { startServiceProcess, TEST_INTERNAL_SECRET, type ServiceProcess } from './services.ts';

/** A fixed key ring for tests (`kid:base64 of 32 bytes`). */
export const TEST_KEY_RING = `test1:${Buffer.alloc(32, 7).toString('base64')}`;

export interface TestInfra {
  nats: InfraServer;
  mongo: InfraServer;
  /** Env that points a service at this file's own servers. */
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/** This test file's own nats-server and FerretDB. */
export async function startInfra(): Promise<TestInfra> {
  const [nats, mongo] = await Promise.all([startNats(), startMongo()]);
  return {
    nats,
    mongo,
    env: {
      NATS_URL: nats.url,
      MONGO_URL: mongo.url,
      INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET,
      KEY_ENCRYPTION_KEYS: TEST_KEY_RING,
      LOG_LEVEL: 'warn',
    },
    dispose: async () => {
      await Promise.all([nats.dispose(), mongo.dispose()]);
    },
  };
}

export interface TestStack extends TestInfra {
  services: Record<string, ServiceProcess>;
  gateway?: ServiceProcess;
  /** Base URL of the gateway. */
  url: string;
}

/**
 * Starts infrastructure, the named services as processes, and a gateway routing to them. Extra env
 * per service can be given; every service gets the infra env and the test secrets.
 */
export async function startStack(
  names: string[],
  options: {
    env?: Record<string, string>;
    serviceEnv?: Record<string, Record<string, string>>;
    gateway?: boolean;
  } = {},
): Promise<TestStack> {
  const infra = await startInfra();
  const services: Record<string, ServiceProcess> = {};
  try {
    await Promise.all(
      names.map(async (name) => {
        services[name] = await startServiceProcess(name, {
          ...infra.env,
          SIGNUP_ENABLED: 'true',
          PASSWORD_SCRYPT_N: '1024',
          ...options.env,
          ...options.serviceEnv?.[name],
        });
      }),
    );
    let gateway: ServiceProcess | undefined;
    if (options.gateway !== false) {
      const urls = Object.fromEntries(
        Object.values(services).map((s) => [`${s.name.toUpperCase()}_URL`, s.url]),
      );
      gateway = await startServiceProcess('gateway', {
        ...infra.env,
        ...urls,
        ...options.env,
        ...options.serviceEnv?.gateway,
      });
    }
    return {
      ...infra,
      services,
      gateway,
      url: gateway?.url ?? '',
      dispose: async () => {
        await Promise.all([gateway?.stop(), ...Object.values(services).map((s) => s.stop())]);
        await infra.dispose();
      },
    };
  } catch (err) {
    await Promise.all(Object.values(services).map((s) => s.stop()));
    await infra.dispose();
    throw err;
  }
}

/** A unique, valid email for a test. */
export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}@example.test`;
}
