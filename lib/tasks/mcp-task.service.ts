import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { MCP_CLUSTER_LINK, MCP_NOTIFICATION_BUS, MCP_RESOLVED_OPTIONS, MCP_TASK_STORE } from '../mcp.constants';
import type { ClusterLink } from '../cluster/cluster-link.interface';
import { MemoryClusterLink } from '../stores/memory/memory-cluster.link';
import type { ResolvedMcpOptions } from '../mcp-options.factory';
import type { NotificationBus } from '../notifications/notification-bus.interface';
import { ErrorCode, isJsonObject, type JsonObject } from '../protocol/json-rpc';
import { McpError } from '../protocol/mcp-error';
import { DEFAULT_KEY_PREFIX, invalidAnswer, type ClientMethod, type InputRequest } from '../protocol/client-requests';
import {
  isTerminal,
  type McpTaskError,
  type McpTaskRecord,
  type McpTaskStatus,
  type TaskStore,
} from './task-store.interface';

/** The task settings, resolved from the module options (`tasks`). */
export interface TaskSettings {
  /** Modern era: how long a task-capable call runs in place before it becomes a task. */
  readonly inlineMs: number;
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  /** Live (not terminal) tasks one owner may have. */
  readonly maxLivePerOwner: number;
  /** How long `tasks/result` waits for a terminal state. */
  readonly resultTimeoutMs: number;
  /** How often expired tasks are looked for. */
  readonly sweepIntervalMs: number;
  /** How long a task that expired while live stays readable as failed. */
  readonly expiredGraceMs: number;
}

/** What a new task is made of: who owns it, what it runs, and the retention asked for. */
export type NewTask = Pick<McpTaskRecord, 'owner' | 'era' | 'revision' | 'sessionId' | 'method' | 'name'> & {
  /** The retention the client asked for (2025-11-25 `task.ttl`), capped by `maxTtlMs`. */
  readonly requestedTtlMs?: number;
};

/** How a task's work ended. */
export type TaskOutcome =
  { readonly type: 'result'; readonly result: JsonObject } | { readonly type: 'error'; readonly error: McpTaskError };

/** Settles the pending `tasks/update` questions of a task. */
interface PendingInput {
  readonly request: InputRequest;
  resolve(answer: JsonObject): void;
  reject(reason: unknown): void;
}

/** A task whose work runs in this process. */
interface LiveTask {
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

const MISSING = 'Task not found';

/**
 * The answers of `tasks/update` to questions the task asked (`methodOf` names the method of the
 * question under a key; other keys are ignored). An answer of the wrong shape refuses them all
 * (-32602), before any is used.
 */
function checkedAnswers(responses: JsonObject, methodOf: (key: string) => ClientMethod | undefined): JsonObject {
  const accepted: JsonObject = {};
  for (const [key, answer] of Object.entries(responses)) {
    const method = methodOf(key);
    if (method === undefined) {
      continue;
    }
    const invalid = invalidAnswer(method, answer);
    if (invalid !== undefined) {
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: inputResponses.${key}: ${invalid}`);
    }
    accepted[key] = answer;
  }
  return accepted;
}

/**
 * The tasks of this server: made by `tools/call` when the mode table says so, driven by the
 * `tasks/*` methods, and readable by the application.
 *
 * Every change is stored before anyone hears of it: status notifications and `tasks/result`
 * waiters are told through the notification bus once the store has the new state. Terminal
 * states are final. Expired tasks are swept: a live one is stopped and failed, a terminal one
 * deleted.
 *
 * @publicApi
 */
@Injectable()
export class McpTaskService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpTaskService');
  private readonly live = new Map<string, LiveTask>();
  /** Wake-ups of `tasks/result` waiters, by task id. */
  private readonly waiters = new Map<string, Set<() => void>>();
  /** The last creation under way, by owner: the next one waits for it. */
  private readonly creations = new Map<string, Promise<void>>();
  private readonly settings: TaskSettings;
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;
  /** Wake-ups of `whenIdle()`, once no task works here any more. */
  private idleWaiters: Array<() => void> = [];

  constructor(
    @Inject(MCP_TASK_STORE) private readonly store: TaskStore,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: NotificationBus,
    @Inject(MCP_RESOLVED_OPTIONS) options: Pick<ResolvedMcpOptions, 'tasks'>,
    @Inject(MCP_CLUSTER_LINK) private readonly link: ClusterLink = new MemoryClusterLink(),
  ) {
    this.settings = options.tasks;
  }

  /** The resolved settings. */
  get options(): TaskSettings {
    return this.settings;
  }

  onModuleInit(): void {
    const stopBus = this.bus.subscribe((event) => {
      if (event.type !== 'task_status') {
        return;
      }
      const { task } = event;
      if (isTerminal(task.status) && this.live.has(task.id)) {
        // Ended elsewhere (cancelled or expired on another instance): the work here stops.
        this.release(task.id, new McpError(ErrorCode.InternalError, task.statusMessage ?? 'The task ended'), true);
      }
      this.wake(task.id);
    });
    const stopLink = this.link.onMessage((message) => {
      if (message.type === 'task_input' && this.live.has(message.taskId)) {
        this.answer(message.taskId, message.responses).catch((error: unknown) => {
          this.logger.warn(`Could not answer task ${message.taskId}: ${String(error)}`);
        });
      }
    });
    this.stopListening = () => {
      stopBus();
      stopLink();
    };
    this.timer = setInterval(() => void this.sweep(), this.settings.sweepIntervalMs);
    this.timer.unref();
  }

  /** Stops the sweeper and the work of every live task of this process. */
  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopListening?.();
    const shutdown = new McpError(ErrorCode.InternalError, 'Server shutting down');
    for (const id of [...this.live.keys()]) {
      this.release(id, shutdown, true);
    }
  }

  /** A task by id, whoever owns it; `undefined` when unknown or expired. */
  async get(id: string): Promise<McpTaskRecord | undefined> {
    const record = await this.store.get(id);
    return record !== undefined && this.readable(record) ? record : undefined;
  }

  /** The tasks of one owner (`session:<id>` or `principal:<id>`), sorted by id. */
  async list(owner: string): Promise<McpTaskRecord[]> {
    return (await this.store.list(owner)).filter((record) => this.readable(record));
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
   * Creates a task in `working`, within the owner's cap (-32603 beyond it). The task is stored
   * when this resolves: a `tasks/get` finds it at once.
   *
   * @internal the engine's
   */
  async create(init: NewTask, abort: (reason: unknown) => void): Promise<McpTaskRecord> {
    // One owner's creations run one after the other: the count they check against the cap is
    // then exact, whatever the store's latency.
    const { owner } = init;
    const created = (this.creations.get(owner) ?? Promise.resolve()).then(() => this.createNow(init, abort));
    const done = created.then(
      () => undefined,
      () => undefined,
    );
    this.creations.set(owner, done);
    void done.then(() => {
      if (this.creations.get(owner) === done) {
        this.creations.delete(owner);
      }
    });
    return created;
  }

  private async createNow(init: NewTask, abort: (reason: unknown) => void): Promise<McpTaskRecord> {
    const live = await this.store.countLive(init.owner);
    if (live >= this.settings.maxLivePerOwner) {
      throw new McpError(
        ErrorCode.InternalError,
        `Too many tasks in progress: at most ${this.settings.maxLivePerOwner} per caller`,
      );
    }
    const now = Date.now();
    const requested = init.requestedTtlMs;
    const ttlMs = Math.min(
      requested !== undefined && Number.isInteger(requested) && requested > 0 ? requested : this.settings.defaultTtlMs,
      this.settings.maxTtlMs,
    );
    const record: McpTaskRecord = {
      id: `task_${randomBytes(16).toString('hex')}`,
      owner: init.owner,
      era: init.era,
      revision: init.revision,
      sessionId: init.sessionId,
      method: init.method,
      name: init.name,
      status: 'working',
      createdAt: now,
      updatedAt: now,
      ttlMs,
      expiresAt: now + ttlMs,
      pollIntervalMs: this.settings.pollIntervalMs,
    };
    this.live.set(record.id, { abort, pending: new Map(), issued: new Set(), ranks: new Map(), waitingOnClient: 0 });
    try {
      await this.store.create(record);
    } catch (error) {
      this.live.delete(record.id);
      throw error;
    }
    return record;
  }

  /**
   * Records how a task's work ended; ignored once the task is terminal (cancelled, expired).
   *
   * @internal the engine's
   */
  async settle(id: string, outcome: TaskOutcome): Promise<void> {
    this.release(id, new McpError(ErrorCode.InternalError, 'The task ended'), false);
    await this.transition(id, (record) => {
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
   * Cancels a task: it becomes `cancelled` and its work is aborted (cooperatively: the work
   * sees its signal abort). Returns the task after the change, or as it was when it was
   * terminal already.
   */
  async cancel(id: string, reason = 'Cancelled by the client'): Promise<McpTaskRecord | undefined> {
    const changed = await this.transition(id, (record) => ({ ...record, status: 'cancelled', statusMessage: reason }));
    if (changed !== undefined) {
      this.release(id, new McpError(ErrorCode.InternalError, reason), true);
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

  /**
   * Modern era: asks the client a question through the task. The task moves to
   * `input_required` with the question under `key`, and the answer comes with `tasks/update`.
   *
   * @internal the engine's
   */
  async ask(id: string, key: string | undefined, request: InputRequest): Promise<JsonObject> {
    const live = this.live.get(id);
    if (live === undefined) {
      throw new McpError(ErrorCode.InternalError, `${request.method}: the task is over`);
    }
    const chosen = key ?? this.nextKey(live, request.method);
    if (live.issued.has(chosen)) {
      throw new McpError(ErrorCode.InternalError, `Input key "${chosen}" was used before in this task`);
    }
    live.issued.add(chosen);
    const answer = new Promise<JsonObject>((resolve, reject) => live.pending.set(chosen, { request, resolve, reject }));
    let stored: McpTaskRecord | undefined;
    try {
      stored = await this.transition(id, (record) => ({
        ...record,
        status: 'input_required',
        statusMessage: 'Waiting for input from the client',
        inputRequests: { ...record.inputRequests, [chosen]: { method: request.method, params: request.params } },
      }));
    } catch (error) {
      // Never asked (the store is away): nothing may settle the answer later, unawaited.
      live.pending.delete(chosen);
      throw error;
    }
    if (stored === undefined) {
      live.pending.delete(chosen);
      throw new McpError(ErrorCode.InternalError, `${request.method}: the task is over`);
    }
    return answer;
  }

  /**
   * Modern era (`tasks/update`): answers questions of a task. Answers to keys the task does not
   * wait for are ignored; an answer of the wrong shape is refused (-32602) before any is used.
   *
   * @internal the engine's
   */
  async answer(id: string, responses: unknown): Promise<void> {
    if (!isJsonObject(responses)) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: inputResponses must be an object');
    }
    const live = this.live.get(id);
    if (live === undefined) {
      await this.answerElsewhere(id, responses);
      return;
    }
    const accepted = checkedAnswers(responses, (key) => live.pending.get(key)?.request.method);
    const keys = Object.keys(accepted);
    if (keys.length === 0) {
      return;
    }
    const inputs = keys.map((key) => live.pending.get(key)!);
    keys.forEach((key) => live.pending.delete(key));
    const clientWaits = live.waitingOnClient > 0;
    await this.transition(id, (record) => {
      const remaining: JsonObject = { ...record.inputRequests };
      keys.forEach((key) => delete remaining[key]);
      const waiting = Object.keys(remaining).length > 0 || clientWaits;
      return {
        ...record,
        status: waiting ? 'input_required' : 'working',
        statusMessage: waiting ? record.statusMessage : undefined,
        inputRequests: Object.keys(remaining).length > 0 ? remaining : undefined,
      };
    });
    inputs.forEach((input, index) => input.resolve(accepted[keys[index]] as JsonObject));
  }

  /**
   * Answers to a task whose work runs on another instance (or nowhere any more): checked here
   * against the questions the task stored, then sent to the instance that runs it.
   */
  private async answerElsewhere(id: string, responses: JsonObject): Promise<void> {
    const record = await this.store.get(id);
    const asked = record?.inputRequests;
    if (record === undefined || isTerminal(record.status) || asked === undefined) {
      return;
    }
    const accepted = checkedAnswers(responses, (key) => {
      const question = asked[key];
      return isJsonObject(question) && typeof question.method === 'string'
        ? (question.method as ClientMethod)
        : undefined;
    });
    if (Object.keys(accepted).length > 0) {
      await this.link.broadcast({ type: 'task_input', taskId: id, responses: accepted });
    }
  }

  /**
   * Legacy era: the task waits for (`waiting`) or got (`!waiting`) the client's answer to a
   * request sent on the session; it is `input_required` while any is unanswered.
   *
   * @internal the engine's
   */
  async waitingOnClient(id: string, waiting: boolean): Promise<void> {
    const live = this.live.get(id);
    if (live === undefined) {
      return;
    }
    live.waitingOnClient += waiting ? 1 : -1;
    const status: McpTaskStatus = live.waitingOnClient > 0 || live.pending.size > 0 ? 'input_required' : 'working';
    await this.transition(id, (record) =>
      record.status === status
        ? undefined
        : {
            ...record,
            status,
            statusMessage: status === 'input_required' ? 'Waiting for input from the client' : undefined,
          },
    );
  }

  /**
   * Sets the status message of a live task (progress of a modern task).
   *
   * @internal the engine's
   */
  async describe(id: string, statusMessage: string): Promise<void> {
    await this.transition(id, (record) =>
      record.statusMessage === statusMessage ? undefined : { ...record, statusMessage },
    );
  }

  /**
   * Waits until the task is terminal, at most `timeoutMs`, or until `signal` aborts. Resolves
   * with the task as it then is (not terminal on a timeout), `undefined` if it is gone.
   */
  async awaitTerminal(id: string, timeoutMs: number, signal?: AbortSignal): Promise<McpTaskRecord | undefined> {
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
        const record = await this.get(id);
        const left = deadline - Date.now();
        if (record === undefined || isTerminal(record.status) || left <= 0 || signal?.aborted === true) {
          return record;
        }
        let timer: NodeJS.Timeout | undefined;
        let onAbort: (() => void) | undefined;
        await new Promise<void>((resolve) => {
          timer = setTimeout(resolve, left);
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
    if (this.live.size === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Shutdown, once its grace period is over: every task whose work still runs in this process
   * fails with `message` (-32603), stored before its work is aborted, so that the clients (on
   * any instance, with a shared store) read a final state at once rather than a task that stays
   * `working` until it expires. The task is kept for its TTL like any other. Returns how many
   * tasks failed.
   *
   * @internal the shutdown's
   */
  async failLive(message: string): Promise<number> {
    const ids = [...this.live.keys()];
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
          this.logger.error(`Could not fail task ${id}: ${error instanceof Error ? error.message : String(error)}`);
        } finally {
          this.release(id, reason, true);
        }
      }),
    );
    return ids.length;
  }

  /**
   * Fails the live tasks that outlived their TTL (their work is stopped) and deletes the
   * terminal ones. Runs every `sweepIntervalMs`; returns how many tasks it acted on.
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
        const expired = new McpError(ErrorCode.InternalError, 'Task expired');
        this.release(record.id, expired, true);
        await this.transition(record.id, (current) => ({
          ...current,
          status: 'failed',
          error: { code: ErrorCode.InternalError, message: 'Task expired' },
          statusMessage: 'Task expired',
          expiresAt: now + this.settings.expiredGraceMs,
        }));
      }
    } catch (error) {
      this.logger.error(`Task sweep failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return acted;
  }

  /**
   * Applies a change to a task that is not terminal, stores it, then tells the listeners.
   * Resolves with the stored task, or `undefined` when the task is gone, terminal or unchanged.
   */
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
        this.logger.error(`Could not publish task ${id}: ${error instanceof Error ? error.message : String(error)}`);
        this.wake(id);
      }
    }
    return stored;
  }

  /**
   * Forgets a task whose work runs in this process: its pending questions fail with `reason`,
   * and its work is aborted with it unless the work ended on its own.
   */
  private release(id: string, reason: McpError, abortWork: boolean): void {
    const live = this.live.get(id);
    if (live === undefined) {
      return;
    }
    this.live.delete(id);
    live.pending.forEach((input) => input.reject(reason));
    if (abortWork) {
      live.abort(reason);
    }
    if (this.live.size === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      waiters.forEach((wake) => wake());
    }
  }

  private wake(id: string): void {
    this.waiters.get(id)?.forEach((wake) => wake());
  }

  /** Whether a stored task may still be read: not past its expiry. */
  private readable(record: McpTaskRecord): boolean {
    return !(isTerminal(record.status) && record.expiresAt <= Date.now());
  }

  /** A key of the task's own, ranked per method as a multi round-trip round ranks them. */
  private nextKey(live: LiveTask, method: string): string {
    const prefix = DEFAULT_KEY_PREFIX[method as ClientMethod] ?? 'input';
    let rank = live.ranks.get(prefix) ?? 0;
    let key: string;
    do {
      rank += 1;
      key = `${prefix}-${rank}`;
    } while (live.issued.has(key));
    live.ranks.set(prefix, rank);
    return key;
  }
}
