import { messageOf } from '../protocol/messages/mcp-error';
import type { RefusalLog } from '../protocol/bounds/refusal-log';
import { systemClock, type Clock } from '../protocol/bounds/clock';
import { within } from '../protocol/messages/thenables';
import { underTtl } from './task-expiry';
import type { McpTaskRecord } from '../interfaces/task-store.interface';

/**
 * Stores a kept outcome: resolves with the task as stored, or `undefined` when there was nothing
 * to store (the task ended otherwise in the store); rejects when the store failed. `attempt`
 * counts from 1.
 */
export type OutcomeWrite = (attempt: number) => Promise<McpTaskRecord | undefined>;

/** Where the outcomes report what happened to them. */
export interface OutcomeLog {
  readonly refusals: Pick<RefusalLog, 'warn' | 'debug'>;
  /** A line for an operator that is no warning (an outcome stored after all). */
  log(message: string): void;
  error(message: string): void;
}

/** The backoff of the writes of a kept outcome. */
export interface OutcomeBackoff {
  readonly firstMs: number;
  readonly maxMs: number;
}

/** 100 ms, doubling up to 5 s: Redis restarting or failing over answers within a few seconds. */
const BACKOFF: OutcomeBackoff = { firstMs: 100, maxMs: 5_000 };

interface Kept {
  /** The task as this instance answers it while the store does not have it: terminal. */
  readonly record: McpTaskRecord;
  readonly write: OutcomeWrite;
  readonly since: number;
  attempts: number;
  /** Set once a write failed: from then on this instance answers the task from `record`. */
  failed: boolean;
  lastError?: unknown;
  inFlight?: Promise<McpTaskRecord | undefined>;
  timer?: NodeJS.Timeout;
}

/**
 * The outcomes of tasks whose work ended in this process, kept until the store takes them: a
 * write the store fails (Redis stalled, restarting, out of memory) is retried with backoff until
 * the store takes it or the task's TTL passes. Meanwhile this instance answers the task from
 * the kept outcome, and the drain counts it (see `TaskManager.whenIdle`).
 */
export class TaskOutcomes {
  private readonly kept = new Map<string, Kept>();
  private emptyWaiters: Array<() => void> = [];
  /** The shutdown gave its last chance: a write that fails now is not retried. */
  private closed = false;
  /** The tasks whose outcome the shutdown gave up on. */
  private readonly lost: string[] = [];

  constructor(
    private readonly log: OutcomeLog,
    /** A kept outcome became readable here, or went: whoever waits on the task reads it again. */
    private readonly changed: (id: string) => void,
    private readonly backoff: OutcomeBackoff = BACKOFF,
    /** The clock of the tasks' times (Redis's with Redis): the TTL is compared on it. */
    private readonly clock: Clock = systemClock,
  ) {}

  /** How many outcomes are not stored yet. */
  get size(): number {
    return this.kept.size;
  }

  /** Whether an outcome of the task is on its way to the store. */
  has(id: string): boolean {
    return this.kept.has(id);
  }

  /**
   * The task as this instance answers it: from its kept outcome once a write of it failed and
   * while its TTL lasts (past it, the store's task is the truth: see `task-expiry`).
   */
  answer(id: string, now: number): McpTaskRecord | undefined {
    const kept = this.kept.get(id);
    return kept !== undefined && kept.failed && underTtl(kept.record, now) === 'current' ? kept.record : undefined;
  }

  /**
   * Keeps the outcome `record` (the task as it ends) until `write` stores it, and makes the first
   * write. Resolves with the task as stored, `undefined` when the store had it ended otherwise,
   * or `record` when the store failed (it is then retried).
   */
  keep(record: McpTaskRecord, write: OutcomeWrite): Promise<McpTaskRecord | undefined> {
    const kept: Kept = { record, write, since: Date.now(), attempts: 0, failed: false };
    this.kept.set(record.id, kept);
    return this.attempt(kept);
  }

  /** The task ended in the store (its outcome stored, or ended elsewhere): nothing is kept for it. */
  drop(id: string): void {
    const kept = this.kept.get(id);
    if (kept !== undefined) {
      this.remove(kept);
    }
  }

  /** Resolves once every kept outcome is stored or dropped (at once when none is kept). */
  whenEmpty(): Promise<void> {
    if (this.kept.size === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.emptyWaiters.push(resolve));
  }

  /**
   * The shutdown's last chance: every outcome not stored yet is written once more now (or its
   * write under way awaited), for at most `timeoutMs`; those the store still does not take are
   * logged by task id and given up. Nothing is retried afterwards. Resolves the ids given up.
   */
  async flush(timeoutMs: number): Promise<string[]> {
    this.closed = true;
    const writes = [...this.kept.values()].map((kept) => {
      clearTimeout(kept.timer);
      kept.timer = undefined;
      return kept.inFlight ?? this.attempt(kept);
    });
    if (writes.length > 0) {
      await within(Promise.allSettled(writes), timeoutMs);
      [...this.kept.values()].forEach((kept) => this.lose(kept));
    }
    return [...this.lost];
  }

  /** The shutdown is under way and the store does not take `kept`: given up, logged by task id. */
  private lose(kept: Kept): void {
    const { id, status } = kept.record;
    const why = kept.lastError === undefined ? 'the store did not answer in time' : messageOf(kept.lastError);
    this.log.error(`The outcome of task ${id} (${status}) could not be stored before shutdown: ${why}`);
    this.lost.push(id);
    this.remove(kept);
  }

  private attempt(kept: Kept): Promise<McpTaskRecord | undefined> {
    kept.attempts += 1;
    const done = kept.write(kept.attempts).then(
      (stored) => {
        if (kept.attempts > 1) {
          const after = `after ${kept.attempts} attempts in ${Date.now() - kept.since} ms`;
          if (stored !== undefined) {
            this.log.log(`The outcome of task ${kept.record.id} was stored ${after}`);
          } else {
            this.log.refusals.debug(
              `The outcome of task ${kept.record.id} was dropped ${after}: the task had ended otherwise, or is gone`,
            );
          }
        }
        this.remove(kept);
        return stored;
      },
      (error: unknown) => {
        kept.inFlight = undefined;
        kept.lastError = error;
        this.failed(kept, error);
        return kept.record;
      },
    );
    kept.inFlight = done;
    return done;
  }

  /** A write failed: retried after a backoff, or dropped once the task's TTL has passed. */
  private failed(kept: Kept, error: unknown): void {
    if (this.kept.get(kept.record.id) !== kept) {
      // Dropped meanwhile: the task ended in the store.
      return;
    }
    const { id } = kept.record;
    if (this.closed) {
      this.lose(kept);
      return;
    }
    // Past its TTL the task is failed as expired by whoever reads it next (see `task-expiry`).
    if (underTtl(kept.record, this.clock.now()) !== 'current') {
      this.log.error(
        `The outcome of task ${id} was dropped: its TTL passed before the store took it ` +
          `(${kept.attempts} attempts, last: ${messageOf(error)})`,
      );
      this.remove(kept);
      return;
    }
    if (!kept.failed) {
      kept.failed = true;
      // One warning per failure episode, whatever the number of tasks and retries.
      this.log.refusals.warn(
        'task outcome',
        `Could not store the outcome of task ${id}: ${messageOf(error)}; kept here and retried until stored`,
      );
      this.changed(id);
    } else {
      this.log.refusals.debug(
        `Could not store the outcome of task ${id} (attempt ${kept.attempts}): ${messageOf(error)}`,
      );
    }
    const ceiling = Math.min(this.backoff.firstMs * 2 ** (kept.attempts - 1), this.backoff.maxMs);
    // Jitter: the instances and tasks that failed together do not retry together.
    const delay = Math.ceil(ceiling / 2 + (Math.random() * ceiling) / 2);
    kept.timer = setTimeout(() => {
      kept.timer = undefined;
      void this.attempt(kept);
    }, delay);
    kept.timer.unref();
  }

  private remove(kept: Kept): void {
    clearTimeout(kept.timer);
    kept.timer = undefined;
    if (this.kept.get(kept.record.id) !== kept) {
      return;
    }
    this.kept.delete(kept.record.id);
    if (kept.failed) {
      this.changed(kept.record.id);
    }
    if (this.kept.size === 0 && this.emptyWaiters.length > 0) {
      const waiters = this.emptyWaiters;
      this.emptyWaiters = [];
      waiters.forEach((wake) => wake());
    }
  }
}
