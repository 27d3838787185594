/**
 * The bounded pool of workers of one stdio connection: at most `maxWorkers` requests run and
 * `maxQueue` wait; `subscriptions/listen` holds no worker but counts against `maxSubscriptions`.
 * Admission is synchronous, so that whether a request starts, waits or is refused does not
 * depend on timing.
 */
import type { RequestId, JSONRPCRequest, JSONRPCResponse } from '../../protocol/messages/json-rpc';
import type { McpEra } from '../../protocol/messages/revisions';

/** A single request, from admission to its answer. */
export interface RequestWork {
  readonly kind: 'request';
  readonly message: JSONRPCRequest;
  readonly era: McpEra;
  /** `subscriptions/listen`: holds no worker slot, counted against `maxSubscriptions`. */
  readonly listen: boolean;
  /** A listen that no longer counts against `maxSubscriptions`. */
  unlisted?: boolean;
  state: 'queued' | 'running';
  /** Handed to the engine: from then on the engine cancels it. */
  handed: boolean;
  /** Cancelled before the engine had it: it is never handed over, nor answered. */
  cancelled: boolean;
  /** The `cancelScope` it runs under. */
  scope?: string;
}

/** A legacy JSON-RPC batch: runs in one worker, answered as one array. */
export interface BatchWork {
  readonly kind: 'batch';
  /** Answers known at admission (invalid elements, duplicate ids), in element order. */
  readonly early: JSONRPCResponse[];
  readonly requests: JSONRPCRequest[];
  state: 'queued' | 'running';
  handed: boolean;
  /** Requests of the batch cancelled before they were handed to the engine. */
  readonly cancelled: Set<RequestId>;
  scope?: string;
}

export type Work = RequestWork | BatchWork;

/** The limits of the pool. */
export interface StdioWorkerLimits {
  readonly maxWorkers: number;
  readonly maxQueue: number;
  readonly maxSubscriptions: number;
}

/** What the pool runs work with, and where a failure outside the engine is reported. */
export interface StdioWorkerHooks {
  run(work: Work): Promise<void>;
  failed(work: Work, error: unknown): void;
}

export class StdioWorkers {
  /** Requests admitted and not yet answered, by id (queued, running, listening, in a batch). */
  readonly inflight = new Map<RequestId, Work>();
  private readonly queue: Work[] = [];
  private running = 0;
  private listening = 0;
  /** Everything started and not yet settled: workers, listens. */
  private readonly tasks = new Set<Promise<void>>();
  private wakeOnIdle: (() => void) | undefined;

  constructor(
    private readonly limits: StdioWorkerLimits,
    private readonly hooks: StdioWorkerHooks,
  ) {}

  /** Starts a listen, which holds no worker; `false` when `maxSubscriptions` are open. */
  listen(work: RequestWork): boolean {
    if (this.listening >= this.limits.maxSubscriptions) {
      return false;
    }
    this.inflight.set(work.message.id, work);
    this.listening += 1;
    this.start(work, () => this.unlist(work));
    return true;
  }

  /** A listen's place is free (it ended, or the engine removed it). */
  unlist(work: RequestWork): void {
    if (!work.unlisted) {
      work.unlisted = true;
      this.listening -= 1;
    }
  }

  /** Starts `work` on a free worker or queues it; `false` when both are full. */
  admit(work: Work): boolean {
    if (this.running < this.limits.maxWorkers) {
      this.running += 1;
      this.start(work, () => this.release());
      return true;
    }
    if (this.queue.length < this.limits.maxQueue) {
      this.queue.push(work);
      return true;
    }
    return false;
  }

  /** Takes queued work out of the queue (cancelled before it started). */
  dequeue(work: Work): void {
    this.queue.splice(this.queue.indexOf(work), 1);
    this.wake();
  }

  /** Empties the queue (shutdown); returns what waited in it. */
  takeQueue(): Work[] {
    const queued = this.queue.splice(0);
    this.wake();
    return queued;
  }

  /** Resolves once nothing is queued or running. */
  async idle(): Promise<void> {
    while (this.tasks.size > 0 || this.queue.length > 0) {
      await new Promise<void>((resolve) => (this.wakeOnIdle = resolve));
    }
  }

  /** A worker is free: the next queued work takes it. */
  private release(): void {
    const next = this.queue.shift();
    if (next === undefined) {
      this.running -= 1;
      return;
    }
    this.start(next, () => this.release());
  }

  private start(work: Work, done: () => void): void {
    work.state = 'running';
    const task: Promise<void> = this.hooks
      .run(work)
      .catch((error: unknown) => this.hooks.failed(work, error))
      .finally(() => {
        this.tasks.delete(task);
        done();
        this.wake();
      });
    this.tasks.add(task);
  }

  private wake(): void {
    if (this.tasks.size === 0 && this.queue.length === 0) {
      this.wakeOnIdle?.();
    }
  }
}
