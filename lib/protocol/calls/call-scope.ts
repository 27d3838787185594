/**
 * The life of one request inside the engine: whether it was cancelled, timed out or answered,
 * and the abort signal its handler sees. Built to cost nothing when nothing happens: the
 * `AbortController` is only created if a handler asks for the signal, and deadlines are watched
 * by one shared timer rather than one timer per request.
 */
import { isThenable, type Awaitable } from '../messages/thenables';

/** What a transport offers to tell the engine that a request is lost. */
export interface CancellationSource {
  /** Whether the request is lost already (checked before its handler starts). */
  isCancelled(): boolean;
  /**
   * Calls `listener` once if the request is lost (a modern client closed its stream...), also
   * right away if it already is. Returns a function that stops listening.
   */
  onCancel(listener: (reason: unknown) => void): () => void;
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

/**
 * The server, not the client, stopped a request before its handler ended: the engine answers it
 * with this error's message, where a request the client cancelled or left gets no answer.
 */
export class CallStoppedError extends Error {}

/** A handler ran past the engine's deadline. */
export class CallTimeoutError extends CallStoppedError {}

/** The server is shutting down and its grace period ended before the handler did. */
export class ServerShutdownError extends CallStoppedError {}

export class CallScope {
  private controller: AbortController | undefined;
  private source: CancellationSource | undefined;
  private stopListening: (() => void) | undefined;
  private abortReason: unknown;
  /** Rejects the promise `run()` returned, once its work went asynchronous. */
  private reject: ((reason: Error) => void) | undefined;
  /** While the synchronous part of `run()`'s work runs: a stop then waits in `stoppedWith`. */
  private working = false;
  private stoppedWith: Error | undefined;
  private isAborted = false;
  /** Set by `abandon`: the signal aborts, also when the handler first asks for it afterwards. */
  private abandoned = false;
  private abandonReason: unknown;
  /** Set once the request is answered: nothing more may be sent for it. */
  finished = false;
  /** Maintained by `Deadlines`: when the request times out, and its neighbours in the watch list. */
  deadline: number | undefined;
  /** The limit the deadline was set from, for the timeout's message. */
  limitMs = 0;
  next: CallScope | undefined;
  previous: CallScope | undefined;
  /** Maintained by `InflightRequests`: the method while the request runs, and its neighbours in the running list. */
  runningMethod: string | undefined;
  runningNext: CallScope | undefined;
  runningPrevious: CallScope | undefined;

  get aborted(): boolean {
    return this.isAborted;
  }

  /** Whether the request was answered without its handler's result, and its work told to stop (`abandon`). */
  get wasAbandoned(): boolean {
    return this.abandoned;
  }

  /** Why the scope was aborted. */
  get reason(): unknown {
    return this.abortReason;
  }

  /**
   * The signal handlers see; created on first use. Only then does the scope listen to the
   * transport's cancellation: a handler that never looks at its signal cannot be stopped by it,
   * and its request costs no listener.
   */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.isAborted) {
        this.controller.abort(this.abortReason);
      } else if (this.abandoned) {
        this.controller.abort(this.abandonReason);
      } else if (this.source !== undefined && !this.finished) {
        this.stopListening = this.source.onCancel((reason) => this.abort(reason));
      }
    }
    return this.controller.signal;
  }

  /** The transport's cancellation of the request, listened to once the signal is used. */
  cancelledBy(source: CancellationSource | undefined): void {
    this.source = source;
  }

  /** Marks the request answered and stops listening for its cancellation. */
  finish(): void {
    this.finished = true;
    this.stopListening?.();
    this.stopListening = undefined;
  }

  /**
   * Settles `run()` now, rejected with `reason`, without aborting the request: it is answered
   * in another way (a multi round-trip round that needs input).
   */
  interrupt(reason: Error): void {
    this.stop(reason);
  }

  /**
   * Marks the request answered without its handler's result (a multi round-trip round ended
   * with `input_required`) and aborts the handler's signal, so that it stops its work.
   */
  abandon(reason: unknown): void {
    this.finish();
    if (!this.abandoned) {
      this.abandoned = true;
      this.abandonReason = reason;
    }
    this.controller?.abort(reason);
  }

  /** Aborts the request, unless it is answered already. */
  abort(reason: unknown): void {
    if (this.isAborted || this.finished) {
      return;
    }
    this.isAborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
    this.stop(asError(reason));
  }

  /** Settles `run()` now with `reason`; the first stop wins, as a promise's first settlement does. */
  private stop(reason: Error): void {
    if (this.reject !== undefined) {
      this.reject(reason);
    } else if (this.working) {
      this.stoppedWith ??= reason;
    }
  }

  /**
   * Runs `work`, settling early (rejected with the abort reason) if the scope is aborted first:
   * a handler that ignores its signal must not hold the answer. Work that answers synchronously
   * is answered the same way, without a promise; it throws what it throws. `work` is called
   * with `context` and `input`, so that a caller needs no closure of its own per request.
   */
  run<T, C = undefined, I = undefined>(
    work: (context: C, input: I) => Awaitable<T>,
    context?: C,
    input?: I,
  ): Awaitable<T> {
    if (this.isAborted) {
      // Lost before it started (the client went away while the body was read...): never run it.
      return Promise.reject(asError(this.abortReason));
    }
    let result: Awaitable<T>;
    this.working = true;
    try {
      result = work(context as C, input as I);
    } catch (error) {
      throw this.stoppedWith ?? error;
    } finally {
      this.working = false;
    }
    if (this.stoppedWith !== undefined) {
      // Stopped while it ran (a question it asked ended the round): what it returns is dropped.
      if (isThenable(result)) {
        Promise.resolve(result).catch(() => undefined);
      }
      throw this.stoppedWith;
    }
    return isThenable<T>(result) ? this.settledEarly(result) : result;
  }

  /**
   * The work's promise, settled early (rejected) if the scope is stopped first. A function of
   * its own, so that synchronous work pays nothing for its closure (see `Awaitable`).
   */
  private settledEarly<T>(pending: PromiseLike<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.reject = reject;
      pending.then(resolve, reject);
    });
  }
}

/**
 * Aborts the scopes that outlive the deadline, with one timer for all of them. The scopes are
 * kept in a list linked through the scopes themselves: watching and forgetting a scope allocate
 * nothing, and the list only ever holds the requests running now.
 */
export class Deadlines {
  private head: CallScope | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** How often the timer looks: a deadline fires at most this late (a quarter of the shortest limit, 10 ms to 1 s). */
  private granularityMs = Infinity;

  constructor(private readonly limitMs: number) {}

  /** Watches `scope` with the default limit, or with `limitMs` (a transport's own bound); 0 watches nothing. */
  watch(scope: CallScope, limitMs = this.limitMs): void {
    if (limitMs <= 0) {
      return;
    }
    scope.deadline = Date.now() + limitMs;
    scope.limitMs = limitMs;
    scope.next = this.head;
    scope.previous = undefined;
    if (this.head !== undefined) {
      this.head.previous = scope;
    }
    this.head = scope;
    const granularityMs = Math.min(1_000, Math.max(10, Math.floor(limitMs / 4)));
    if (granularityMs < this.granularityMs) {
      this.granularityMs = granularityMs;
      clearInterval(this.timer);
      this.timer = undefined;
    }
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.tick(), this.granularityMs);
      this.timer.unref();
    }
  }

  forget(scope: CallScope): void {
    if (scope.deadline === undefined) {
      return;
    }
    scope.deadline = undefined;
    if (scope.previous !== undefined) {
      scope.previous.next = scope.next;
    } else if (this.head === scope) {
      this.head = scope.next;
    }
    if (scope.next !== undefined) {
      scope.next.previous = scope.previous;
    }
    scope.next = undefined;
    scope.previous = undefined;
  }

  private tick(): void {
    if (this.head === undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    const now = Date.now();
    let scope: CallScope | undefined = this.head;
    while (scope !== undefined) {
      const next: CallScope | undefined = scope.next;
      if (scope.deadline !== undefined && scope.deadline <= now) {
        this.forget(scope);
        scope.abort(new CallTimeoutError(`Request timed out after ${scope.limitMs} ms`));
      }
      scope = next;
    }
  }
}
