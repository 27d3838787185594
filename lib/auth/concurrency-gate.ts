/**
 * At most `limit` tasks running at once, at most `maxWaiting` waiting in turn for one of them;
 * past that, a task is refused without running. A task that ends hands its slot to the first
 * that waits, so that the limit holds however the tasks settle.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly maxWaiting: number,
  ) {}

  /** Runs `task` in its turn; `undefined`, and `task` never runs, when too many wait already. */
  run<T>(task: () => T | PromiseLike<T>): Promise<T> | undefined {
    if (this.running < this.limit) {
      this.running += 1;
      return this.execute(task);
    }
    if (this.waiting.length >= this.maxWaiting) {
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.execute(task));
  }

  private async execute<T>(task: () => T | PromiseLike<T>): Promise<T> {
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) {
        this.running -= 1;
      } else {
        next();
      }
    }
  }
}
