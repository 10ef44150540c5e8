/**
 * One lane per endpoint: at most `perLane` items of a lane run at once and at most `maxRunning` in
 * all; the rest wait in their lane's own FIFO, and free slots go round-robin to lanes with waiting
 * work. So a slow endpoint's backlog never stands in front of another endpoint's work. The caller
 * bounds `held` (running + waiting); when it is full, `evictFromLongest` hands back items of the
 * longest waiting line so that fetching for the other lanes can go on.
 */
export class Lanes<T> {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, T[]>();
  private waitingCount = 0;
  private runningCount = 0;

  constructor(
    private readonly perLane: number,
    private readonly maxRunning: number,
    private readonly start: (lane: string, item: T) => Promise<void>,
    private readonly onIdleSlot: () => void = () => undefined,
  ) {}

  get held(): number {
    return this.runningCount + this.waitingCount;
  }

  get active(): number {
    return this.runningCount;
  }

  /** Every waiting item (the worker keeps their JetStream messages alive). */
  *waitingItems(): Iterable<T> {
    for (const list of this.waiting.values()) yield* list;
  }

  add(lane: string, item: T): void {
    const list = this.waiting.get(lane) ?? [];
    list.push(item);
    this.waiting.set(lane, list);
    this.waitingCount++;
    this.pump();
  }

  /** Removes up to `count` of the newest waiting items of the longest line. */
  evictFromLongest(count: number): T[] {
    let longest: string | undefined;
    for (const [lane, list] of this.waiting) {
      if (!longest || list.length > this.waiting.get(longest)!.length) longest = lane;
    }
    if (!longest) return [];
    const list = this.waiting.get(longest)!;
    const out = list.splice(Math.max(0, list.length - count));
    if (list.length === 0) this.waiting.delete(longest);
    this.waitingCount -= out.length;
    return out;
  }

  /** Removes every waiting item (shutdown). */
  drainWaiting(): T[] {
    const out = [...this.waitingItems()];
    this.waiting.clear();
    this.waitingCount = 0;
    return out;
  }

  /** Starts waiting items while slots are free: lanes in turn, a served lane goes to the back. */
  private pump() {
    let progressed = true;
    while (this.runningCount < this.maxRunning && progressed) {
      progressed = false;
      for (const [lane, list] of this.waiting) {
        if ((this.running.get(lane) ?? 0) >= this.perLane) continue;
        const item = list.shift()!;
        this.waiting.delete(lane);
        if (list.length > 0) this.waiting.set(lane, list);
        this.waitingCount--;
        this.run(lane, item);
        progressed = true;
        break;
      }
    }
  }

  private run(lane: string, item: T) {
    this.running.set(lane, (this.running.get(lane) ?? 0) + 1);
    this.runningCount++;
    void this.start(lane, item).finally(() => {
      const left = (this.running.get(lane) ?? 1) - 1;
      if (left <= 0) this.running.delete(lane);
      else this.running.set(lane, left);
      this.runningCount--;
      this.pump();
      this.onIdleSlot();
    });
  }
}
