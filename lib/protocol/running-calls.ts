/**
 * The requests running in the engine now, whatever their transport or era: what a shutdown
 * waits for, and stops once its grace period is over.
 */
import type { CallScope } from './call-scope';
import { LONG_LIVED_METHODS } from './method-table';

export class RunningCalls {
  /** The scope of every running request, with its method. */
  private readonly calls = new Map<CallScope, string>();
  private idleWaiters: Array<() => void> = [];

  /** How many requests run, long-lived ones (`subscriptions/listen`) included. */
  get size(): number {
    return this.calls.size;
  }

  /** How many of the running requests are long-lived (`subscriptions/listen`). */
  get longLived(): number {
    let count = 0;
    for (const method of this.calls.values()) {
      if (LONG_LIVED_METHODS.has(method)) {
        count += 1;
      }
    }
    return count;
  }

  add(scope: CallScope, method: string): void {
    this.calls.set(scope, method);
  }

  delete(scope: CallScope): void {
    if (this.calls.delete(scope) && this.calls.size === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      waiters.forEach((wake) => wake());
    }
  }

  /** Resolves once no request runs (at once when none does). */
  whenIdle(): Promise<void> {
    if (this.calls.size === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Aborts every running request with `reason`; returns how many there were. */
  abortAll(reason: Error): number {
    const scopes = [...this.calls.keys()];
    scopes.forEach((scope) => scope.abort(reason));
    return scopes.length;
  }
}
