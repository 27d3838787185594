/**
 * The requests running in the engine now, whatever their transport or era: the cancellable ones
 * by cancel scope (a session, a connection) and request id, for `notifications/cancelled` and a
 * scope's end; every one with its method, for a shutdown to wait for or stop; and the deadline
 * of each.
 */
import type { RequestId } from './messages/json-rpc';
import { Deadlines, type CallScope } from './calls/call-scope';
import type { MethodTable } from './methods';
import type { ResolvedRequest } from './calls/resolved-request';

export class InflightRequests {
  /** Running cancellable requests, by cancel scope and request id. */
  private readonly byScope = new Map<string, Map<RequestId, CallScope>>();
  /**
   * Every running request, linked through its scope (`runningNext`, `runningPrevious`): a Map
   * keyed by the scope cost each request about 3 µs in `npm run bench` (the scope's identity
   * hash, the delete and the rehashing), a list nothing.
   */
  private head: CallScope | undefined;
  private count = 0;
  /** The deadline of every running request. */
  private readonly deadlines: Deadlines;
  private idleWaiters: Array<() => void> = [];

  /** `callTimeoutMs`: the deadline of a request whose transport sets none; 0 disables it. */
  constructor(
    callTimeoutMs: number,
    /** The engine's methods: which are long-lived, which wait by a limit of their own. */
    private readonly methods: MethodTable,
  ) {
    this.deadlines = new Deadlines(callTimeoutMs);
  }

  /** How many requests run, long-lived ones (`subscriptions/listen`) included. */
  get size(): number {
    return this.count;
  }

  /** How many of the running requests are long-lived (`subscriptions/listen`). */
  get longLived(): number {
    let count = 0;
    for (let scope = this.head; scope !== undefined; scope = scope.runningNext) {
      if (this.methods.entry(scope.runningMethod!)?.longLived === true) {
        count += 1;
      }
    }
    return count;
  }

  /**
   * Registers a request that starts running, and watches its deadline; `untrack` forgets it
   * once it ended. Map keys keep ids 1 and "1" apart, as JSON-RPC ids must be.
   */
  track(request: ResolvedRequest): void {
    const { scope, facts } = request;
    this.link(scope, request.method);
    const cancelScope = facts.cancelScope;
    if (cancelScope !== undefined) {
      let running = this.byScope.get(cancelScope);
      if (running === undefined) {
        running = new Map();
        this.byScope.set(cancelScope, running);
      }
      running.set(request.id, scope);
    }
    const entry = this.methods.entry(request.method);
    if (entry?.longLived !== true) {
      // A method that waits by a limit of its own is bound only by the transport's.
      this.deadlines.watch(scope, entry?.selfTimed === true ? (facts.timeoutMs ?? 0) : facts.timeoutMs);
    }
  }

  /**
   * Forgets a request that ended (a method rather than a closure from `track`: every request
   * passes here). Forgetting it again does nothing.
   */
  untrack(request: ResolvedRequest): void {
    const { scope } = request;
    this.deadlines.forget(scope);
    this.release(scope);
    const cancelScope = request.facts.cancelScope;
    if (cancelScope === undefined) {
      return;
    }
    const running = this.byScope.get(cancelScope);
    if (running !== undefined && running.get(request.id) === scope) {
      running.delete(request.id);
      if (running.size === 0) {
        this.byScope.delete(cancelScope);
      }
    }
  }

  /** The running request `requestId` of a cancel scope, if it runs here. */
  find(scope: string, requestId: RequestId): CallScope | undefined {
    return this.byScope.get(scope)?.get(requestId);
  }

  /** How many requests of a scope (a session, a connection) run now. */
  runningIn(scope: string): number {
    return this.byScope.get(scope)?.size ?? 0;
  }

  /** Aborts every running request of a scope with `reason`, and forgets the scope. */
  abortScope(scope: string, reason: Error): void {
    const running = this.byScope.get(scope);
    this.byScope.delete(scope);
    running?.forEach((call) => call.abort(reason));
  }

  /** Resolves once no request runs (at once when none does). */
  whenIdle(): Promise<void> {
    if (this.count === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Aborts every running request with `reason`; returns how many there were. */
  abortAll(reason: Error): number {
    const scopes: CallScope[] = [];
    for (let scope = this.head; scope !== undefined; scope = scope.runningNext) {
      scopes.push(scope);
    }
    scopes.forEach((scope) => scope.abort(reason));
    return scopes.length;
  }

  private link(scope: CallScope, method: string): void {
    if (scope.runningMethod !== undefined) {
      // Tracked already (a call run again): it stays once in the list.
      return;
    }
    scope.runningMethod = method;
    scope.runningPrevious = undefined;
    scope.runningNext = this.head;
    if (this.head !== undefined) {
      this.head.runningPrevious = scope;
    }
    this.head = scope;
    this.count += 1;
  }

  /** Takes a scope out of the running list; whether it was in it. */
  private unlink(scope: CallScope): boolean {
    if (scope.runningMethod === undefined) {
      return false;
    }
    if (scope.runningPrevious !== undefined) {
      scope.runningPrevious.runningNext = scope.runningNext;
    } else {
      this.head = scope.runningNext;
    }
    if (scope.runningNext !== undefined) {
      scope.runningNext.runningPrevious = scope.runningPrevious;
    }
    scope.runningMethod = undefined;
    scope.runningNext = undefined;
    scope.runningPrevious = undefined;
    this.count -= 1;
    return true;
  }

  private release(scope: CallScope): void {
    if (this.unlink(scope) && this.count === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      waiters.forEach((wake) => wake());
    }
  }
}
