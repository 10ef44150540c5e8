/**
 * Runs work one at a time per key, in arrival order, within this process. FerretDB 1.x applies an
 * update as read-then-write outside any lock, so two concurrent updates of one document lose one of
 * them (100 concurrent `$inc` kept 13 in our measurement) and concurrent upserts collide. Every write
 * to a session, counter or hourly document therefore goes through its key here. MongoDB updates are
 * atomic per document, so with MongoDB this only orders work; with FerretDB it makes one replica exact
 * (several replicas on FerretDB would need a distributed lock: see docs/sessions.md).
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(work, work);
    const tail = current.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
