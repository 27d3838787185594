import type { JSONObject } from '../protocol/messages/json-rpc';
import type { InputRequest } from '../protocol/messages/client-requests';
import type { McpTaskRecord } from '../interfaces/task-store.interface';

/** A question of a task waiting for its `tasks/update` answer. */
export interface PendingInput {
  readonly request: InputRequest;
  resolve(answer: JSONObject): void;
  reject(reason: unknown): void;
}

/** A task whose work runs in this process. */
export interface LiveTask {
  /** The task as it was created: what its outcome is kept with until the store takes it. */
  readonly record: McpTaskRecord;
  readonly abort: (reason: unknown) => void;
  /** Modern era: questions waiting for `tasks/update`, by key. */
  readonly pending: Map<string, PendingInput>;
  /** Every key issued to the task: a key is never reused. */
  readonly issued: Set<string>;
  /** The last rank of the keys made per prefix (`elicitation-1`, `sampling-1`...). */
  readonly ranks: Map<string, number>;
  /** Legacy era: questions sent to the client and not answered yet. */
  waitingOnClient: number;
}

/**
 * The tasks whose work runs in this process, by id. The store knows every task; only the
 * instance that runs one can abort its work or settle its questions.
 */
export class LiveTasks {
  private readonly tasks = new Map<string, LiveTask>();
  /** Wake-ups of `whenIdle()`, once no task works here any more. */
  private idleWaiters: Array<() => void> = [];

  /** Starts tracking the work of a task; `abort` stops it. */
  add(record: McpTaskRecord, abort: (reason: unknown) => void): LiveTask {
    const live: LiveTask = {
      record,
      abort,
      pending: new Map(),
      issued: new Set(),
      ranks: new Map(),
      waitingOnClient: 0,
    };
    this.tasks.set(record.id, live);
    return live;
  }

  get(id: string): LiveTask | undefined {
    return this.tasks.get(id);
  }

  has(id: string): boolean {
    return this.tasks.has(id);
  }

  get size(): number {
    return this.tasks.size;
  }

  /** The ids of the tasks working here now (a copy: releasing them while iterating is safe). */
  ids(): string[] {
    return [...this.tasks.keys()];
  }

  /**
   * Forgets a task whose work runs here: its pending questions fail with `reason`, and its work
   * is aborted with it unless the work ended on its own (`abortWork` false).
   */
  release(id: string, reason: unknown, abortWork: boolean): void {
    const live = this.tasks.get(id);
    if (live === undefined) {
      return;
    }
    this.tasks.delete(id);
    live.pending.forEach((input) => input.reject(reason));
    if (abortWork) {
      live.abort(reason);
    }
    if (this.tasks.size === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      waiters.forEach((wake) => wake());
    }
  }

  /** Forgets a task whose creation failed: nothing was asked of it, nobody waits on it. */
  discard(id: string): void {
    this.tasks.delete(id);
  }

  /** Resolves once no task has its work running here (at once when none has). */
  whenIdle(): Promise<void> {
    if (this.tasks.size === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
