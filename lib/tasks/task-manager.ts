import type { ClusterLink } from '../cluster/cluster-link.interface';
import type { NotificationBus } from '../notifications/notification-bus.interface';
import type { InputRequest } from '../protocol/client-requests';
import { ErrorCode, type JsonObject } from '../protocol/json-rpc';
import { McpError, messageOf } from '../protocol/mcp-error';
import { RefusalLog } from '../protocol/refusal-log';
import { LiveTasks } from './live-tasks';
import type { NewTask, TaskOutcome, TaskPort } from '../protocol/tasks/task-port';
import { TaskCreations } from './task-creations';
import { TaskQuestions } from './task-questions';
import type { TaskSettings } from './task-settings';
import {
  isTerminal,
  taskQuotaKey,
  type McpTaskRecord,
  type McpTaskStatus,
  type TaskStore,
} from './task-store.interface';
import { TaskWaiters } from './task-waiters';

/** Where the manager reports what it cannot tell a caller (a failed publication, sweep or answer). */
export interface TaskLogger {
  warn(message: string): void;
  error(message: string): void;
  debug?(message: string): void;
}

export type { NewTask, TaskOutcome } from '../protocol/tasks/task-port';

const MISSING = 'Task not found';

/** The failure of a task whose instance stopped while its work ran. */
export const TASK_INSTANCE_STOPPED = 'The instance running this task stopped';

/** `record`, failed with `message` (-32603). */
function failedRecord(record: McpTaskRecord, message: string): McpTaskRecord {
  return {
    ...record,
    status: 'failed',
    error: { code: ErrorCode.InternalError, message },
    statusMessage: message,
  };
}

/**
 * The tasks of one server, without a framework: created by the engine when a call becomes a
 * task, driven by the `tasks/*` methods, read by the application.
 *
 * Every change is stored before anyone hears of it: status notifications and `tasks/result`
 * waiters are told through the notification bus once the store has the new state. Terminal
 * states are final. Expired tasks are failed (live) or deleted (terminal) by `sweep`.
 *
 * The manager starts nothing by itself: whoever owns it runs `sweep` on a timer and feeds it the
 * task events of the bus (`statusChanged`) and the answers other instances relay (`inputArrived`).
 */
export class TaskManager implements TaskPort {
  private readonly live = new LiveTasks();
  private readonly waiters = new TaskWaiters();
  private readonly questions: TaskQuestions;
  private readonly creations: TaskCreations;

  constructor(
    private readonly store: TaskStore,
    private readonly bus: NotificationBus,
    private readonly link: ClusterLink,
    private readonly settings: TaskSettings,
    private readonly logger: TaskLogger,
  ) {
    const refusals = new RefusalLog({
      warn: (message) => logger.warn(message),
      debug: (message) => logger.debug?.(message),
    });
    this.creations = new TaskCreations(this.live, store, settings, refusals, link.shared ? link.instanceId : undefined);
    this.questions = new TaskQuestions(this.live, store, link, (id, change) => this.transition(id, change));
  }

  /** The resolved settings. */
  get options(): TaskSettings {
    return this.settings;
  }

  /**
   * A task by id, whoever owns it; `undefined` when unknown or expired. A live task whose
   * instance stopped is failed first (see `orphaned`).
   */
  async get(id: string): Promise<McpTaskRecord | undefined> {
    const record = await this.store.get(id);
    return record !== undefined && this.readable(record) ? this.orphaned(record) : undefined;
  }

  /** The tasks of one owner (`session:<id>` or `principal:<id>`), sorted by id. */
  async list(owner: string): Promise<McpTaskRecord[]> {
    const records = (await this.store.list(owner)).filter((record) => this.readable(record));
    return Promise.all(records.map((record) => this.orphaned(record)));
  }

  /** A task of `owner`; -32602 when it is unknown, expired or someone else's (the same answer). */
  async owned(owner: string, id: unknown): Promise<McpTaskRecord> {
    if (typeof id !== 'string' || id.length === 0) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: taskId must be a non-empty string');
    }
    const record = await this.get(id);
    if (record === undefined || record.owner !== owner) {
      throw new McpError(ErrorCode.InvalidParams, `${MISSING}: ${id}`);
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

  /** Records how a task's work ended; ignored once the task is terminal (cancelled, expired). */
  async settle(id: string, outcome: TaskOutcome): Promise<McpTaskRecord | undefined> {
    this.live.release(id, new McpError(ErrorCode.InternalError, 'The task ended'), false);
    return this.transition(id, (record) => {
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
    });
  }

  /**
   * Cancels a task: it becomes `cancelled` and its work is aborted (cooperatively: the work sees
   * its signal abort). Returns the task after the change, or as it was when it was terminal already.
   */
  async cancel(id: string, reason = 'Cancelled by the client'): Promise<McpTaskRecord | undefined> {
    const changed = await this.transition(id, (record) => ({ ...record, status: 'cancelled', statusMessage: reason }));
    if (changed !== undefined) {
      this.live.release(id, new McpError(ErrorCode.InternalError, reason), true);
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
  ask(id: string, key: string | undefined, request: InputRequest): Promise<JsonObject> {
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

  /** How many tasks have their work running in this process. */
  get liveCount(): number {
    return this.live.size;
  }

  /** Resolves once no task has its work running in this process (at once when none has). */
  whenIdle(): Promise<void> {
    return this.live.whenIdle();
  }

  /**
   * Fails every task whose work still runs in this process with `message` (-32603), stored
   * before its work is aborted, so that clients on any instance read a final state at once. The
   * task is kept for its TTL like any other. Returns how many tasks failed.
   */
  async failLive(message: string): Promise<number> {
    const ids = this.live.ids();
    const reason = new McpError(ErrorCode.InternalError, message);
    await Promise.all(
      ids.map(async (id) => {
        try {
          await this.transition(id, (record) => ({
            ...record,
            status: 'failed',
            error: { code: ErrorCode.InternalError, message },
            statusMessage: message,
          }));
        } catch (error) {
          this.logger.error(`Could not fail task ${id}: ${messageOf(error)}`);
        } finally {
          this.live.release(id, reason, true);
        }
      }),
    );
    return ids.length;
  }

  /** Aborts the work of every task of this process with `message`, storing nothing (shutdown). */
  abortAll(message: string): void {
    const reason = new McpError(ErrorCode.InternalError, message);
    for (const id of this.live.ids()) {
      this.live.release(id, reason, true);
    }
  }

  /**
   * Fails the live tasks that outlived their TTL (their work is stopped) and deletes the
   * terminal ones; returns how many tasks it acted on. Never rejects: a failure is logged.
   */
  async sweep(now = Date.now()): Promise<number> {
    let acted = 0;
    try {
      for (const record of await this.store.due(now)) {
        acted += 1;
        if (isTerminal(record.status)) {
          await this.store.delete(record.id);
          continue;
        }
        this.live.release(record.id, new McpError(ErrorCode.InternalError, 'Task expired'), true);
        await this.transition(record.id, (current) => ({
          ...current,
          status: 'failed',
          error: { code: ErrorCode.InternalError, message: 'Task expired' },
          statusMessage: 'Task expired',
          expiresAt: now + this.settings.expiredGraceMs,
        }));
      }
    } catch (error) {
      this.logger.error(`Task sweep failed: ${messageOf(error)}`);
    }
    return acted;
  }

  /**
   * A task changed, here or on an instance sharing the store (a `task_status` event of the
   * bus): its waiters read it again, and its work here stops if it ended elsewhere.
   */
  statusChanged(task: McpTaskRecord): void {
    if (isTerminal(task.status) && this.live.has(task.id)) {
      // Ended elsewhere (cancelled or expired on another instance): the work here stops.
      this.live.release(task.id, new McpError(ErrorCode.InternalError, task.statusMessage ?? 'The task ended'), true);
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
  inputArrived(taskId: string, responses: JsonObject): void {
    if (!this.live.has(taskId)) {
      return;
    }
    this.answer(taskId, responses).catch((error: unknown) => {
      this.logger.warn(`Could not answer task ${taskId}: ${String(error)}`);
    });
  }

  /** Stores a change of a task that is not terminal, then tells the bus (see `TaskTransition`). */
  private async transition(
    id: string,
    change: (record: McpTaskRecord) => McpTaskRecord | undefined,
  ): Promise<McpTaskRecord | undefined> {
    const stored = await this.store.update(id, (record) => {
      if (isTerminal(record.status)) {
        return undefined;
      }
      const next = change(record);
      if (next !== undefined) {
        next.updatedAt = Math.max(Date.now(), record.updatedAt);
        if (isTerminal(next.status)) {
          delete next.inputRequests;
        }
      }
      return next;
    });
    if (stored !== undefined) {
      try {
        await this.bus.publish({ type: 'task_status', task: stored });
      } catch (error) {
        this.logger.error(`Could not publish task ${id}: ${messageOf(error)}`);
        // Nobody hears of the change through the bus: the waiters here at least read it.
        this.waiters.wake(id);
      }
      if (isTerminal(stored.status)) {
        await this.trimEnded(stored);
      }
    }
    return stored;
  }

  /**
   * A task ended: its caller keeps `tasks.maxKeptPerOwner` ended tasks at most, the one that
   * ended first dropped first (where the store can: see `TaskStore`). Never rejects: a failure
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
   * The task as it stands once checked that its work still runs: a live task whose instance
   * stopped (killed, or hung past the heartbeat) is failed, since no one will finish it.
   */
  private async orphaned(record: McpTaskRecord): Promise<McpTaskRecord> {
    const { instanceId } = record;
    if (isTerminal(record.status) || instanceId === undefined || (await this.link.isAlive(instanceId))) {
      return record;
    }
    const failed = await this.transition(record.id, (current) =>
      current.instanceId === instanceId ? failedRecord(current, TASK_INSTANCE_STOPPED) : undefined,
    );
    if (failed !== undefined) {
      this.logger.warn(`Task ${record.id} failed: the instance running it (${instanceId}) stopped`);
    }
    return failed ?? (await this.store.get(record.id)) ?? record;
  }

  /** Whether a stored task may still be read: not past its expiry. */
  private readable(record: McpTaskRecord): boolean {
    return !(isTerminal(record.status) && record.expiresAt <= Date.now());
  }
}
