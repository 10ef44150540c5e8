import { ensureEventStreams, Outbox, type ServiceDefinition } from '@platform/kit';
import { buildApp } from './app.ts';
import { workflowEnv } from './config.ts';
import type { WorkflowDeps } from './deps.ts';
import { EventTriggerCache } from './domain/event-trigger-cache.ts';
import { startScheduler } from './domain/scheduler.ts';
import { WorkflowCache } from './domain/workflow-cache.ts';
import { followEventTriggerTypes, startEventTriggerConsumer } from './rpc/event-consumer.ts';
import { serveWorkflowRpc } from './rpc/handlers.ts';

export const workflowService: ServiceDefinition<typeof workflowEnv> = {
  name: 'workflow',
  env: workflowEnv,
  database: (config) => config.MONGO_DB,
  async start({ config, logger, nats, js, db, inFlight, readiness }) {
    await ensureEventStreams(nats.nc);
    const outbox = new Outbox(db, js, logger);
    outbox.start();
    const eventTriggers = new EventTriggerCache();
    const workflows = new WorkflowCache(config.WORKFLOW_CACHE_TTL_MS);
    workflows.listen(nats.nc);
    const deps: WorkflowDeps = { config, db, logger, nc: nats.nc, outbox, eventTriggers, workflows };
    // The consumer starts filtered to the event types of the triggers in the database; from then on
    // every reload (periodic, or after a change made here) sets the filter to the types in use.
    const jsm = await js.jetstreamManager();
    await eventTriggers.refresh(db);
    const subscriptions = serveWorkflowRpc(deps, inFlight);
    const consumer = await startEventTriggerConsumer(deps, inFlight, eventTriggers.eventTypes());
    eventTriggers.follow((types) => followEventTriggerTypes(deps, jsm, types));
    eventTriggers.start(db, config.EVENT_TRIGGER_REFRESH_MS, (err) =>
      logger.warn({ err: err.message }, 'event triggers or their consumer filter not reloaded; will retry'),
    );
    const stopScheduler = startScheduler(deps);
    return {
      app: buildApp(deps, readiness),
      stop: async () => {
        stopScheduler();
        eventTriggers.stop();
        workflows.stop();
        outbox.stop();
        for (const s of subscriptions) s.unsubscribe();
        await consumer.stop();
      },
    };
  },
};
