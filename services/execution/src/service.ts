import { ensureEventStreams, type ServiceDefinition } from '@platform/kit';
import { buildApp } from './app.ts';
import { executionEnv } from './config.ts';
import type { ExecutionDeps } from './deps.ts';
import { startHousekeeping } from './domain/housekeeping.ts';
import { CancelSignals } from './engine/cancel-signals.ts';
import { Runner } from './engine/runner.ts';
import { serveExecutionRpc } from './rpc/handlers.ts';
import { startRunnerConsumer } from './rpc/runner-consumer.ts';

export const executionService: ServiceDefinition<typeof executionEnv> = {
  name: 'execution',
  env: executionEnv,
  database: (config) => config.MONGO_DB,
  async start({ config, logger, nats, js, db, inFlight, readiness }) {
    const deps: ExecutionDeps = { config, db, logger, nc: nats.nc, js, cancels: new CancelSignals() };
    await ensureEventStreams(nats.nc);
    deps.cancels.listen(nats.nc, logger);
    const runner = new Runner(deps);
    const subscriptions = serveExecutionRpc(deps, inFlight);
    const consumer = await startRunnerConsumer(deps, runner, inFlight);
    const stopHousekeeping = startHousekeeping(deps);
    return {
      app: buildApp(deps, readiness),
      stop: async () => {
        stopHousekeeping();
        for (const s of subscriptions) s.unsubscribe();
        // Running executions store their progress after the current step and go to another replica.
        runner.stopping = true;
        await consumer.stop();
        deps.cancels.stop();
      },
    };
  },
};
