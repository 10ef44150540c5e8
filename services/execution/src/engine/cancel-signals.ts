import type { NatsConnection } from '@nats-io/transport-node';
import { ExecutionCancelEntry, executionCancelBucket } from '@platform/contracts';
import { KvMirror, lazyBucket, UnavailableError, type Logger } from '@platform/kit';

/**
 * Cancel requests as every replica sees them: each one mirrors the `exec_cancels` KV bucket in
 * memory. The replica running the execution aborts its step in progress as the entry arrives, and
 * a replica picking an execution up asks the mirror instead of reading storage (the request is
 * also stored in cancel_requests, which stays the record once the bucket's entry has expired).
 */
export class CancelSignals {
  private readonly controllers = new Map<string, AbortController>();
  private readonly requests = new Map<string, Date>();
  private mirror: KvMirror | undefined;
  private bucket: ReturnType<typeof lazyBucket> | undefined;
  private sweeper: NodeJS.Timeout | undefined;

  listen(nc: NatsConnection, logger: Logger) {
    this.bucket = lazyBucket(nc, executionCancelBucket);
    this.mirror = new KvMirror({
      nc,
      logger,
      bucket: executionCancelBucket,
      onEntry: (key, operation, value) => {
        if (operation !== 'PUT') return void this.requests.delete(key);
        const entry = ExecutionCancelEntry.safeParse(value());
        if (!entry.success) return;
        this.requests.set(key, new Date(entry.data.requestedAt));
        this.controllers.get(key)?.abort(new Error('cancelled'));
      },
    });
    this.sweeper = setInterval(() => {
      const oldest = Date.now() - executionCancelBucket.maxAgeMs;
      for (const [id, at] of this.requests) if (at.getTime() < oldest) this.requests.delete(id);
    }, 60_000);
    this.sweeper.unref();
  }

  /**
   * The cancel request of an execution created at `createdAt`, from the mirror when it can answer
   * (loaded, and the execution young enough that its request cannot have expired from the bucket);
   * `undefined` when the caller must read the stored request.
   */
  fromMirror(executionId: string, createdAt: Date): { requestedAt?: Date } | undefined {
    if (!this.mirror?.isLoaded()) return undefined;
    if (Date.now() - createdAt.getTime() > executionCancelBucket.trustMirrorForMs) return undefined;
    const requestedAt = this.requests.get(executionId);
    return requestedAt ? { requestedAt } : {};
  }

  /** The signal of an execution being run here; release it when done. */
  register(executionId: string): AbortSignal {
    const controller = new AbortController();
    this.controllers.set(executionId, controller);
    if (this.requests.has(executionId)) controller.abort(new Error('cancelled'));
    return controller.signal;
  }

  release(executionId: string) {
    this.controllers.delete(executionId);
  }

  /** Tells every replica (through the bucket) that the execution is to be cancelled. */
  async announce(orgId: string, executionId: string, requestedAt: Date) {
    if (!this.bucket) throw new UnavailableError('cancel signals are not started');
    const entry: ExecutionCancelEntry = { orgId, requestedAt: requestedAt.toISOString() };
    try {
      await (await this.bucket()).put(executionId, JSON.stringify(entry));
    } catch (err) {
      throw new UnavailableError(`The cancel signal could not be sent: ${(err as Error).message}`);
    }
  }

  stop() {
    this.mirror?.stop();
    clearInterval(this.sweeper);
  }
}
