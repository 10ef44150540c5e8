import { defineConfig } from 'vitest/config';

// One runner for the workspace. Test files start their own nats-server and FerretDB on free ports,
// so files run in parallel workers without sharing state; two workers fit this 2-core machine.
export default defineConfig({
  test: {
    include: ['libs/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'libs/*/src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
    reporters: process.env.CI ? ['default'] : ['default'],
    globalSetup: ['libs/testing/src/global-setup.ts'],
  },
});
