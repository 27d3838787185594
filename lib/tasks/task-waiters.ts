import { isTerminal, type McpTaskRecord } from '../interfaces/task-store.interface';

/**
 * How often a waiter reads its task again without being woken: the wake-ups come over the
 * notification bus, and one published while this instance's subscription was reconnecting (a
 * Redis restart, a failover) never arrives.
 */
const RECHECK_MS = 5_000;

/**
 * Waits for tasks to end. A waiter sleeps until a change of its task is heard of (`wake`, from
 * the notification bus, so that a change made by any instance sharing the store counts), or
 * `RECHECK_MS` passed, then reads the task again: the wake-up carries no state, the store is the
 * truth.
 */
export class TaskWaiters {
  /** Wake-ups of the waiters, by task id. */
  private readonly waiters = new Map<string, Set<() => void>>();

  /**
   * Waits until the task `read` returns is terminal, at most `timeoutMs`, or until `signal`
   * aborts. Resolves with the task as it then is (not terminal on a timeout), `undefined` if
   * it is gone.
   */
  async untilTerminal(
    id: string,
    read: () => Promise<McpTaskRecord | undefined>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<McpTaskRecord | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let wake!: () => void;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      let set = this.waiters.get(id);
      if (set === undefined) {
        set = new Set();
        this.waiters.set(id, set);
      }
      set.add(wake);
      try {
        // Registered before reading: a change stored after the read wakes the wait.
        const record = await read();
        const left = deadline - Date.now();
        if (record === undefined || isTerminal(record.status) || left <= 0 || signal?.aborted === true) {
          return record;
        }
        let timer: NodeJS.Timeout | undefined;
        let onAbort: (() => void) | undefined;
        await new Promise<void>((resolve) => {
          timer = setTimeout(resolve, Math.min(left, RECHECK_MS));
          onAbort = resolve;
          signal?.addEventListener('abort', onAbort, { once: true });
          void woken.then(resolve);
        });
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort!);
      } finally {
        set.delete(wake);
        if (set.size === 0 && this.waiters.get(id) === set) {
          this.waiters.delete(id);
        }
      }
    }
  }

  /** The task changed: its waiters read it again. */
  wake(id: string): void {
    this.waiters.get(id)?.forEach((wake) => wake());
  }

  /** Every waiter reads its task again. */
  wakeAll(): void {
    this.waiters.forEach((set) => set.forEach((wake) => wake()));
  }
}
