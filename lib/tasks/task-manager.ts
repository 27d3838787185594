import type { ClusterLink } from '../cluster/cluster-link.interface';
import { EXPIRED_TASKS_FAILED } from '../shared/mcp.messages';
import { systemClock, type Clock } from '../protocol/bounds/clock';
import type { McpNotificationBus } from '../interfaces/notification-bus.interface';
import type { InputRequest } from '../protocol/messages/client-requests';
import { McpErrorCode, type JSONObject } from '../protocol/messages/json-rpc';
import { McpError, messageOf } from '../protocol/messages/mcp-error';
import { RefusalLog } from '../protocol/bounds/refusal-log';
import { logFailedSend } from '../protocol/bounds/store-unavailable';
import { LiveTasks } from './live-tasks';
import type { NewTask, TaskOutcome, TaskPort } from '../protocol/tasks/task-port';
import { TaskCreations } from './task-creations';
import { expiredTask, failedTask, TASK_EXPIRED, underTtl } from './task-expiry';
import { TaskOutcomes } from './task-outcomes';
import { TaskQuestions } from './task-questions';
import type { TaskSettings } from './task-settings';
import {
  isTerminal,
  taskQuotaKey,
  type McpTaskRecord,
  type McpTaskStatus,
  type McpTaskStore,
} from '../interfaces/task-store.interface';
import { TaskWaiters } from './task-waiters';

/** Where the manager reports what it cannot tell a caller (a failed publication, sweep or answer). */
export interface TaskLogger {
  warn(message: string): void;
  error(message: string): void;
  debug?(message: string): void;
  /** A line that is no warning (an outcome stored after all); a warning without it. */
  log?(message: string): void;
}

export type { NewTask, TaskOutcome } from '../protocol/tasks/task-port';

const MISSING = 'Task not found';

/** The task `record` as its work's `outcome` ends it. */
function ended(record: McpTaskRecord, outcome: TaskOutcome): McpTaskRecord {
  if (outcome.type === 'error') {
    return { ...record, status: 'failed', error: outcome.error, statusMessage: outcome.error.message };
  }
  const isError = outcome.result.isError === true;
  // 2025-11-25 fails a task whose tool reported an error; 2026-07-28 completes it (the
  // result says isError), keeping `failed` for protocol errors.
  const status: McpTaskStatus = isError && record.era === 'legacy' ? 'failed' : 'completed';
  return {
    ...record,
    status,
    result: outcome.result,
    statusMessage: isError ? 'The tool reported an error' : undefined,
  };
}

/** Whether two terminal tasks ended the same way (the same outcome, written twice). */
function sameEnd(a: McpTaskRecord, b: McpTaskRecord): boolean {
  return (
    a.status === b.status &&
    JSON.stringify(a.result) === JSON.stringify(b.result) &&
    JSON.stringify(a.error) === JSON.stringify(b.error)
  );
}

/** The failure of a task whose instance stopped while its work ran. */
export const TASK_INSTANCE_STOPPED = 'The instance running this task stopped';

/**
 * The tasks of one server, without a framework: created by the engine when a call becomes a
 * task, driven by the `tasks/*` methods, read by the application.
 *
 * Every change is stored before anyone hears of it: status notifications and `tasks/result`
 * waiters are told through the notification bus once the store has the new state. Terminal
 * states are final. The outcome of a work that ended here is kept until the store takes it
 * (`TaskOutcomes`): this instance answers the task from it meanwhile. The TTL is one rule
 * (`task-expiry`): a task past it is failed by whatever touches it next, or by `sweep`.
 *
 * The manager starts nothing by itself: whoever owns it runs `sweep` on a timer and feeds it the
 * task events of the bus (`statusChanged`) and the answers other instances relay (`inputArrived`).
 */
export class TaskManager implements TaskPort {
  private readonly live = new LiveTasks();
  private readonly waiters = new TaskWaiters();
  private readonly outcomes: TaskOutcomes;
  private readonly questions: TaskQuestions;
  private readonly creations: TaskCreations;

  constructor(
    private readonly store: McpTaskStore,
    private readonly bus: McpNotificationBus,
    private readonly link: ClusterLink,
    private readonly settings: TaskSettings,
    private readonly logger: TaskLogger,
    /** The clock of the tasks' times: Redis's with Redis, so that instances agree on expiry. */
    private readonly clock: Clock = systemClock,
  ) {
    const refusals = new RefusalLog({
      warn: (message) => logger.warn(message),
      debug: (message) => logger.debug?.(message),
    });
    this.creations = new TaskCreations(
      this.live,
      store,
      settings,
      refusals,
      clock,
      link.shared ? link.instanceId : undefined,
    );
    this.outcomes = new TaskOutcomes(
      {
        refusals,
        log: (message) => (logger.log === undefined ? logger.warn(message) : logger.log(message)),
        error: (message) => logger.error(message),
      },
      (id) => this.waiters.wake(id),
      undefined,
      clock,
    );
    this.questions = new TaskQuestions(this.live, store, link, (id, change) => this.transition(id, change));
  }

  /** The resolved settings. */
  get options(): TaskSettings {
    return this.settings;
  }

  /**
   * A task by id, whoever owns it; `undefined` when unknown or gone. A task past its TTL reads
   * failed ("Task expired"); one whose outcome the store has not taken yet reads as it ended; a
   * live task whose instance stopped is failed first (see `orphaned`).
   */
  async get(id: string): Promise<McpTaskRecord | undefined> {
    const now = this.clock.now();
    const kept = this.outcomes.answer(id, now);
    if (kept !== undefined) {
      return kept;
    }
    const record = await this.store.get(id);
    const read = record === undefined ? undefined : await this.asRead(record, now);
    return read === undefined ? undefined : this.orphaned(read);
  }

  /** The tasks of one owner (`session:<id>` or `principal:<id>`), sorted by id. */
  async list(owner: string): Promise<McpTaskRecord[]> {
    const now = this.clock.now();
    const read = await Promise.all(
      (await this.store.list(owner)).map(async (record) => {
        const current = await this.asRead(record, now);
        return current === undefined ? undefined : this.orphaned(current);
      }),
    );
    return read.filter((record): record is McpTaskRecord => record !== undefined);
  }

  /** A task of `owner`; -32602 when it is unknown, expired or someone else's (the same answer). */
  async owned(owner: string, id: unknown): Promise<McpTaskRecord> {
    if (typeof id !== 'string' || id.length === 0) {
      throw new McpError(McpErrorCode.InvalidParams, 'Invalid params: taskId must be a non-empty string');
    }
    const record = await this.get(id);
    if (record === undefined || record.owner !== owner) {
      throw new McpError(McpErrorCode.InvalidParams, `${MISSING}: ${id}`);
    }
    return record;
  }

  /**
   * Creates a task in `working`, within the owner's cap (-32603 beyond it), whose work `abort`
   * stops. The task is stored when this resolves: a `tasks/get` finds it at once.
   */
  create(init: NewTask, abort: (reason: unknown) => void): Promise<McpTaskRecord> {
    return this.creations.create(init, abort);
  }

  /**
   * Records how a task's work ended; ignored once the task is terminal (cancelled, expired), and
   * past its TTL (it fails as expired). Resolves with the task as stored, or, when the store
   * fails, as kept here: the outcome is then retried until the store takes it or the TTL passes.
   */
  settle(id: string, outcome: TaskOutcome): Promise<McpTaskRecord | undefined> {
    return this.end(id, outcome, undefined);
  }

  /**
   * Cancels a task: it becomes `cancelled` and its work is aborted (cooperatively: the work sees
   * its signal abort). Returns the task after the change, or as it was when it was terminal already.
   */
  async cancel(id: string, reason = 'Cancelled by the client'): Promise<McpTaskRecord | undefined> {
    const kept = this.outcomes.answer(id, this.clock.now());
    if (kept !== undefined) {
      // Its work ended here: the outcome is on its way to the store.
      return kept;
    }
    const changed = await this.transition(id, (record) => ({ ...record, status: 'cancelled', statusMessage: reason }));
    if (changed !== undefined) {
      this.live.release(id, new McpError(McpErrorCode.InternalError, reason), true);
    }
    return changed ?? (await this.get(id));
  }

  /** Cancels the live tasks of an owner (a legacy session that ended). */
  async cancelOwned(owner: string, reason: string): Promise<void> {
    for (const record of await this.store.list(owner)) {
      if (!isTerminal(record.status)) {
        await this.cancel(record.id, reason);
      }
    }
  }

  /** Modern era: asks the client a question through the task (see `TaskQuestions.ask`). */
  ask(id: string, key: string | undefined, request: InputRequest): Promise<JSONObject> {
    return this.questions.ask(id, key, request);
  }

  /** Modern era (`tasks/update`): answers questions of a task (see `TaskQuestions.answer`). */
  answer(id: string, responses: unknown): Promise<void> {
    return this.questions.answer(id, responses);
  }

  /** Legacy era: a request to the client is sent (`true`) or answered (`false`). */
  waitingOnClient(id: string, waiting: boolean): Promise<void> {
    return this.questions.waitingOnClient(id, waiting);
  }

  /** Sets the status message of a live task (progress of a modern task). */
  async describe(id: string, statusMessage: string): Promise<void> {
    await this.transition(id, (record) =>
      record.statusMessage === statusMessage ? undefined : { ...record, statusMessage },
    );
  }

  /**
   * Waits until the task is terminal, at most `timeoutMs`, or until `signal` aborts. Resolves
   * with the task as it then is (not terminal on a timeout), `undefined` if it is gone.
   */
  awaitTerminal(id: string, timeoutMs: number, signal?: AbortSignal): Promise<McpTaskRecord | undefined> {
    return this.waiters.untilTerminal(id, () => this.get(id), timeoutMs, signal);
  }

  /** Whether the work of a task runs in this process. */
  isLive(id: string): boolean {
    return this.live.has(id);
  }

  /** How many tasks have their work running in this process, or their outcome not stored yet. */
  get liveCount(): number {
    return this.live.size + this.outcomes.size;
  }

  /**
   * Resolves once no task has its work running in this process and every outcome of a work that
   * ended here is stored (or given up: past its TTL, ended elsewhere); at once when so already.
   */
  async whenIdle(): Promise<void> {
    // An outcome is kept before its work is released: the two are never both empty in between.
    while (this.live.size > 0 || this.outcomes.size > 0) {
      await Promise.all([this.live.whenIdle(), this.outcomes.whenEmpty()]);
    }
  }

  /**
   * Shutdown, last: the outcomes not stored yet are written once more, for at most `timeoutMs`;
   * those the store still does not take are logged by task id and given up. Resolves their ids.
   */
  storeOutcomes(timeoutMs: number): Promise<string[]> {
    return this.outcomes.flush(timeoutMs);
  }

  /**
   * Fails every task whose work still runs in this process with `message` (-32603), stored
   * before its work is aborted, so that clients on any instance read a final state at once. The
   * task is kept for its TTL like any other. Returns how many tasks failed.
   */
  async failLive(message: string): Promise<number> {
    const ids = this.live.ids();
    const reason = new McpError(McpErrorCode.InternalError, message);
    const outcome: TaskOutcome = { type: 'error', error: { code: McpErrorCode.InternalError, message } };
    // A failure the store does not take is kept and retried like any outcome (`storeOutcomes`).
    await Promise.all(ids.map((id) => this.end(id, outcome, reason)));
    return ids.length;
  }

  /** Aborts the work of every task of this process with `message`, storing nothing (shutdown). */
  abortAll(message: string): void {
    const reason = new McpError(McpErrorCode.InternalError, message);
    for (const id of this.live.ids()) {
      this.live.release(id, reason, true);
    }
  }

  /**
   * Fails the live tasks that outlived their TTL (their work is stopped) and deletes the
   * terminal ones; returns how many tasks it acted on. Never rejects: a failure is logged.
   */
  async sweep(now = this.clock.now()): Promise<number> {
    let acted = 0;
    const failed: string[] = [];
    try {
      for (const record of await this.store.due(now)) {
        acted += 1;
        if (isTerminal(record.status)) {
          await this.store.delete(record.id);
          continue;
        }
        this.live.release(record.id, new McpError(McpErrorCode.InternalError, TASK_EXPIRED), true);
        const expired = await this.transition(record.id, (current) =>
          expiredTask(current, now, this.settings.expiredGraceMs),
        );
        if (expired !== undefined) {
          failed.push(expiredLine(record));
        }
      }
    } catch (error) {
      this.logger.error(`Task sweep failed: ${messageOf(error)}`);
    } finally {
      if (failed.length > 0) {
        this.logger.warn(EXPIRED_TASKS_FAILED(failed));
      }
    }
    return acted;
  }

  /**
   * A task changed, here or on an instance sharing the store (a `task_status` event of the
   * bus): its waiters read it again, and its work here stops if it ended elsewhere.
   */
  statusChanged(task: McpTaskRecord): void {
    if (isTerminal(task.status)) {
      if (this.live.has(task.id)) {
        // Ended elsewhere (cancelled or expired on another instance): the work here stops.
        this.live.release(
          task.id,
          new McpError(McpErrorCode.InternalError, task.statusMessage ?? 'The task ended'),
          true,
        );
      }
      // The store has the task ended: its truth replaces an outcome still kept here.
      this.outcomes.drop(task.id);
    }
    this.waiters.wake(task.id);
  }

  /**
   * Another instance stopped (`instance_stopped` of the link): the waiters read their tasks
   * again, which fails those whose work ran there (see `get`).
   */
  instanceStopped(): void {
    this.waiters.wakeAll();
  }

  /** Another instance relays `tasks/update` answers (checked there) for a task that works here. */
  inputArrived(taskId: string, responses: JSONObject): void {
    if (!this.live.has(taskId)) {
      return;
    }
    this.answer(taskId, responses).catch((error: unknown) => {
      this.logger.warn(`Could not answer task ${taskId}: ${String(error)}`);
    });
  }

  /**
   * A work ended (`abort` undefined: on its own) or is stopped with `abort` once its end is
   * stored: its outcome is kept until the store takes it, counted by the drain from before its
   * work is released.
   */
  private async end(id: string, outcome: TaskOutcome, abort: McpError | undefined): Promise<McpTaskRecord | undefined> {
    if (this.outcomes.has(id)) {
      // An outcome of the task is on its way already (its failure at shutdown, then its work's end).
      return undefined;
    }
    const live = this.live.get(id);
    if (live === undefined) {
      // Not working here (ended already, or elsewhere): stored if the task still is not terminal.
      return this.transition(id, (record) => ended(record, outcome));
    }
    const kept = { ...ended(live.record, outcome), updatedAt: this.clock.now() };
    const stored = this.outcomes.keep(kept, (attempt) => this.storeOutcome(kept, outcome, attempt));
    if (abort === undefined) {
      this.live.release(id, new McpError(McpErrorCode.InternalError, 'The task ended'), false);
      return stored;
    }
    try {
      return await stored;
    } finally {
      this.live.release(id, abort, true);
    }
  }

  /**
   * One write of a kept outcome (see `OutcomeWrite`). A retry that finds the task ended the same
   * way found an earlier write that the store applied after its caller gave up on it (a command
   * timeout): nobody heard of it, so it is announced now.
   */
  private async storeOutcome(
    kept: McpTaskRecord,
    outcome: TaskOutcome,
    attempt: number,
  ): Promise<McpTaskRecord | undefined> {
    const stored = await this.transition(kept.id, (record) => ended(record, outcome));
    if (stored !== undefined || attempt === 1) {
      return stored;
    }
    const current = await this.store.get(kept.id);
    if (current === undefined || !isTerminal(current.status) || !sameEnd(current, kept)) {
      return undefined;
    }
    await this.announce(current);
    return current;
  }

  /**
   * Stores a change of a task that is not terminal, then tells the bus (see `TaskTransition`).
   * A task past its TTL is failed as expired whatever the change (see `task-expiry`), and its
   * work here stops.
   */
  private async transition(
    id: string,
    change: (record: McpTaskRecord) => McpTaskRecord | undefined,
  ): Promise<McpTaskRecord | undefined> {
    let expired = false;
    const stored = await this.store.update(id, (record) => {
      if (isTerminal(record.status)) {
        return undefined;
      }
      const now = this.clock.now();
      expired = underTtl(record, now) === 'expired';
      const next = expired ? expiredTask(record, now, this.settings.expiredGraceMs) : change(record);
      if (next !== undefined) {
        next.updatedAt = Math.max(now, record.updatedAt);
        if (isTerminal(next.status)) {
          delete next.inputRequests;
        }
      }
      return next;
    });
    if (stored !== undefined) {
      if (expired) {
        this.live.release(id, new McpError(McpErrorCode.InternalError, TASK_EXPIRED), true);
      }
      await this.announce(stored);
    }
    return stored;
  }

  /** Tells the bus of a stored change (the waiters here at least, when it fails); trims ended tasks. */
  private async announce(stored: McpTaskRecord): Promise<void> {
    try {
      await this.bus.publish({ type: 'task_status', task: stored });
    } catch (error) {
      logFailedSend(this.logger, `publish the status of task ${stored.id}`, error);
      // Nobody hears of the change through the bus: the waiters here at least read it.
      this.waiters.wake(stored.id);
    }
    if (isTerminal(stored.status)) {
      await this.trimEnded(stored);
    }
  }

  /**
   * A task ended: its caller keeps `tasks.maxKeptPerOwner` ended tasks at most, the one that
   * ended first dropped first (where the store can: see `McpTaskStore`). Never rejects: a failure
   * leaves them to their TTL.
   */
  private async trimEnded(task: McpTaskRecord): Promise<void> {
    if (this.store.trimEnded === undefined) {
      return;
    }
    try {
      await this.store.trimEnded(taskQuotaKey(task), this.settings.maxKeptPerOwner);
    } catch (error) {
      this.logger.error(`Could not trim the ended tasks of ${JSON.stringify(taskQuotaKey(task))}: ${messageOf(error)}`);
    }
  }

  /**
   * A stored task as it reads at `now`: from its outcome kept here, as it is, or under the TTL
   * rule (see `task-expiry`) gone, or failed now when it was not terminal (its work stopped: see
   * `transition`) rather than left working until the sweep.
   */
  private asRead(record: McpTaskRecord, now: number): McpTaskRecord | undefined | Promise<McpTaskRecord | undefined> {
    const state = underTtl(record, now);
    if (state === 'current') {
      return this.outcomes.answer(record.id, now) ?? record;
    }
    if (state === 'gone') {
      return undefined;
    }
    return this.transition(record.id, () => undefined).then((failed) => {
      if (failed !== undefined) {
        // Found past its TTL before a sweep did: said as the sweep says it.
        this.logger.warn(EXPIRED_TASKS_FAILED([expiredLine(record)], true));
      }
      return failed ?? this.get(record.id);
    });
  }

  /**
   * The task as it stands once checked that its work still runs: a live task whose instance
   * stopped (killed, or hung past the heartbeat) is failed, since no one will finish it.
   */
  private async orphaned(record: McpTaskRecord): Promise<McpTaskRecord> {
    const { instanceId } = record;
    if (isTerminal(record.status) || instanceId === undefined || (await this.link.isAlive(instanceId))) {
      return record;
    }
    const failed = await this.transition(record.id, (current) =>
      current.instanceId === instanceId ? failedTask(current, TASK_INSTANCE_STOPPED) : undefined,
    );
    if (failed !== undefined) {
      this.logger.warn(`Task ${record.id} failed: the instance running it (${instanceId}) stopped`);
    }
    return failed ?? (await this.store.get(record.id)) ?? record;
  }
}

/** A task the sweep failed, for its log line: its id, TTL and when it expired. */
function expiredLine(record: McpTaskRecord): string {
  return `${record.id} (ttl ${record.ttlMs} ms, expired at ${new Date(record.expiresAt).toISOString()})`;
}
