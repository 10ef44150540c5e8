/** Counts work in progress so that a graceful shutdown can wait for it to finish. */
export class InFlight {
  private count = 0;
  private waiters: Array<() => void> = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    this.count++;
    try {
      return await work();
    } finally {
      this.count--;
      if (this.count === 0) for (const w of this.waiters.splice(0)) w();
    }
  }

  get size(): number {
    return this.count;
  }

  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}
