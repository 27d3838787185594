/**
 * A queue read as an async iterator: values pushed before or while it is read, in order, until
 * it ends. Each iterator reads the values from where the queue stands when it starts.
 */
export class NotificationQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  push(item: T): void {
    this.items.push(item);
    this.notify();
  }

  end(failure?: Error): void {
    this.ended = true;
    this.failure = failure;
    this.notify();
  }

  get done(): boolean {
    return this.ended;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let index = 0;
    for (;;) {
      while (index < this.items.length) {
        yield this.items[index++];
      }
      if (this.ended) {
        if (this.failure !== undefined) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => {
        const previous = this.wake;
        this.wake = () => {
          previous?.();
          resolve();
        };
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
