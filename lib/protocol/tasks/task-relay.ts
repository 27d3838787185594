/**
 * The hand-off of a modern call from its request to a task. The call's work reports its outcome
 * to the relay, never to the request: while the inline window is open the relay passes the
 * outcome to the request, which answers in place; once the window closed first, the relay holds
 * the outcome until the task exists, then gives it to the task. The decision is taken once, on
 * the event loop, so that an outcome reaches exactly one of the two, whatever the timing.
 */

/** How the work of a call ended. */
export type WorkOutcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/** Reports how `work` ends, as a `WorkOutcome`. */
export function reportOutcome<T>(work: Promise<T>, report: (outcome: WorkOutcome<T>) => void): void {
  work.then(
    (value) => report({ ok: true, value }),
    (error: unknown) => report({ ok: false, error }),
  );
}

type RelayState = 'window' | 'inline' | 'handing' | 'task' | 'dropped';

export class TaskRelay<T, H> {
  private state: RelayState = 'window';
  private timer: NodeJS.Timeout | undefined;
  private inlineWaiter: ((outcome: WorkOutcome<T> | undefined) => void) | undefined;
  private held: WorkOutcome<T> | undefined;
  private sink: ((outcome: WorkOutcome<T>) => void) | undefined;
  private readonly handle: Promise<H>;
  private resolveHandle!: (handle: H) => void;
  private rejectHandle!: (reason: unknown) => void;

  constructor() {
    this.handle = new Promise<H>((resolve, reject) => {
      this.resolveHandle = resolve;
      this.rejectHandle = reject;
    });
    // Only the callers of `task()` see a failed hand-off.
    this.handle.catch(() => undefined);
  }

  /**
   * Follows the call's work. Separate from the constructor so that the relay can be in place
   * before the work starts: work that asks a question before its first `await` must find it.
   */
  follow(work: Promise<T>): void {
    reportOutcome(work, (outcome) => this.report(outcome));
  }

  /**
   * Waits for the outcome for at most `windowMs`. Resolves with the outcome when it came first;
   * with `undefined` when the window closed first: the outcome is then held for `handOff`.
   */
  window(windowMs: number): Promise<WorkOutcome<T> | undefined> {
    return new Promise((resolve) => {
      if (this.held !== undefined) {
        // Reported before the window opened.
        resolve(this.held);
        return;
      }
      this.inlineWaiter = resolve;
      if (this.state !== 'window') {
        // Kept in its request already (a multi round-trip round answers it): no hand-off, the
        // outcome, if any ever comes, is the answer.
        return;
      }
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (this.state !== 'window') {
          return;
        }
        this.state = 'handing';
        this.inlineWaiter = undefined;
        resolve(undefined);
      }, windowMs);
    });
  }

  /**
   * Keeps the call in its request for good (a multi round-trip round answers it). Returns
   * `false` when the call was handed to a task already: the caller goes through the task.
   */
  claimInline(): boolean {
    if (this.state === 'window') {
      this.state = 'inline';
      clearTimeout(this.timer);
      this.timer = undefined;
      return true;
    }
    return this.state === 'inline';
  }

  /** Whether the call left its request for a task (or is leaving it). */
  get handedOff(): boolean {
    return this.state === 'handing' || this.state === 'task';
  }

  /** The task's handle, once the hand-off is done; rejects if it failed. */
  task(): Promise<H> {
    return this.handle;
  }

  /**
   * Completes the hand-off: the held outcome, and any later one, go to `sink`.
   */
  handOff(handle: H, sink: (outcome: WorkOutcome<T>) => void): void {
    if (this.state !== 'handing') {
      return;
    }
    this.state = 'task';
    this.sink = sink;
    this.resolveHandle(handle);
    const held = this.held;
    this.held = undefined;
    if (held !== undefined) {
      sink(held);
    }
  }

  /** The task could not be made: the outcome goes nowhere, and the caller stops the work. */
  drop(reason: unknown): void {
    this.state = 'dropped';
    this.held = undefined;
    this.rejectHandle(reason);
  }

  private report(outcome: WorkOutcome<T>): void {
    switch (this.state) {
      case 'window':
      case 'inline': {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.state = 'inline';
        const waiter = this.inlineWaiter;
        this.inlineWaiter = undefined;
        if (waiter !== undefined) {
          waiter(outcome);
        } else {
          this.held = outcome;
        }
        return;
      }
      case 'handing':
        this.held = outcome;
        return;
      case 'task':
        this.sink!(outcome);
        return;
      default:
        return;
    }
  }
}
