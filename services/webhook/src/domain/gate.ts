/**
 * At most `size` tasks at once; the others wait in order. The delivery path's database writes go
 * through one, so a burst of deliveries does not become a burst of concurrent writes (FerretDB's
 * SQLite backend has one writer and answers "database is locked" when many writers wait).
 */
export class Gate {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}
