import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { executionQueue } from '@platform/contracts';

/**
 * Every replica listens to `exec.cancel.*` (plain NATS, no queue group): the one running the
 * execution aborts its step in progress at once. The request itself is stored (cancel_requests), so
 * a replica that picks the execution up later sees it too.
 */
export class CancelSignals {
  private readonly controllers = new Map<string, AbortController>();
  private sub: Subscription | undefined;

  listen(nc: NatsConnection) {
    this.sub = nc.subscribe(executionQueue.cancelWildcard, {
      callback: (err, msg) => {
        if (err) return;
        const id = msg.subject.slice(msg.subject.lastIndexOf('.') + 1);
        this.controllers.get(id)?.abort(new Error('cancelled'));
      },
    });
  }

  /** The signal of an execution being run here; release it when done. */
  register(executionId: string): AbortSignal {
    const controller = new AbortController();
    this.controllers.set(executionId, controller);
    return controller.signal;
  }

  release(executionId: string) {
    this.controllers.delete(executionId);
  }

  broadcast(nc: NatsConnection, executionId: string) {
    nc.publish(executionQueue.cancelSubject(executionId), '');
  }

  stop() {
    this.sub?.unsubscribe();
  }
}
