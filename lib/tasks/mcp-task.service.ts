import {
  Inject,
  Injectable,
  type OnApplicationShutdown,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import {
  MCP_CLOCK,
  MCP_CLUSTER_LINK,
  MCP_NOTIFICATION_BUS,
  MCP_OWN_SESSIONS,
  MCP_TASK_SETTINGS,
  MCP_TASK_STORE,
} from '../shared/mcp.constants';
import type { ClusterLink } from '../cluster/cluster-link.interface';
import { MemoryClusterLink } from '../stores/memory/memory-cluster.link';
import type { McpNotificationBus } from '../interfaces/notification-bus.interface';
import type { InputRequest } from '../protocol/messages/client-requests';
import { systemClock, type Clock } from '../protocol/bounds/clock';
import type { JSONObject } from '../protocol/messages/json-rpc';
import { McpSessionService } from '../sessions/mcp-session.service';
import { TaskManager, type NewTask, type TaskOutcome } from './task-manager';
import type { TaskSettings } from './task-settings';
import type { McpTaskRecord, McpTaskStore } from '../interfaces/task-store.interface';
import { McpLogger } from '../telemetry/mcp.logger';

export type { NewTask, TaskOutcome } from './task-manager';
export type { TaskSettings } from './task-settings';

/**
 * The tasks of this server: made by `tools/call` when the mode table says so, driven by the
 * `tasks/*` methods, and readable by the application.
 *
 * Every change is stored before anyone hears of it: status notifications and `tasks/result`
 * waiters are told through the notification bus once the store has the new state. Terminal
 * states are final. A task past its TTL that has not ended is failed ("Task expired") and its
 * work stopped when it is next read or swept; one that has ended is gone (the sweeper deletes
 * it). The outcome of a work that ended here is kept until the store takes it, retried with
 * backoff while the store fails; meanwhile this instance answers the task from it.
 *
 * The work is the `TaskManager`'s; this service gives it the Nest lifecycle: the sweeper's
 * timer, the bus and cluster subscriptions, and the end of legacy sessions (their tasks are
 * cancelled).
 *
 * @publicApi
 */
@Injectable()
export class McpTaskService implements OnModuleInit, OnModuleDestroy, OnApplicationShutdown {
  /**
   * The framework-free tasks this service runs.
   *
   * @internal
   */
  readonly manager: TaskManager;
  private readonly logger = new McpLogger('McpTaskService');
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;
  private stopSessionWatch: (() => void) | undefined;

  /** @internal */
  constructor(
    @Inject(MCP_TASK_STORE) store: McpTaskStore,
    @Inject(MCP_NOTIFICATION_BUS) private readonly bus: McpNotificationBus,
    @Inject(MCP_TASK_SETTINGS) private readonly settings: TaskSettings,
    @Inject(MCP_CLUSTER_LINK) private readonly link: ClusterLink = new MemoryClusterLink(),
    @Inject(MCP_OWN_SESSIONS) private readonly sessions?: McpSessionService,
    @Inject(MCP_CLOCK) clock: Clock = systemClock,
  ) {
    this.manager = new TaskManager(store, bus, link, settings, this.logger, clock);
  }

  /**
   * The resolved settings.
   *
   * @internal
   */
  get options(): TaskSettings {
    return this.manager.options;
  }

  /** Follows task events (status, input, stopped instances, ended sessions) and starts the sweeper. */
  onModuleInit(): void {
    const stopBus = this.bus.subscribe((event) => {
      if (event.type === 'task_status') {
        this.manager.statusChanged(event.task);
      }
    });
    const stopLink = this.link.onMessage((message) => {
      if (message.type === 'task_input') {
        this.manager.inputArrived(message.taskId, message.responses);
      } else if (message.type === 'instance_stopped') {
        this.manager.instanceStopped();
      }
    });
    this.stopListening = () => {
      stopBus();
      stopLink();
    };
    this.stopSessionWatch ??= this.sessions?.onEnd((sessionId, _reason, here) => {
      if (!here) {
        // The instance that ended the session cancels its tasks.
        return;
      }
      // No one can reach the session's tasks any more.
      this.manager.cancelOwned(`session:${sessionId}`, 'Session ended').catch((error: unknown) => {
        this.logger.error(`Could not cancel the tasks of session ${sessionId}: ${String(error)}`);
      });
    });
    this.timer = setInterval(() => void this.manager.sweep(), this.settings.sweepIntervalMs);
    this.timer.unref();
  }

  /** Stops the sweeper and the work of every live task of this process. */
  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopListening?.();
    this.stopListening = undefined;
    this.manager.abortAll('Server shutting down');
  }

  /**
   * Sessions still end while the application shuts down (the SSE pairs close in their own
   * `onModuleDestroy`): their stored tasks are cancelled until the very end.
   */
  onApplicationShutdown(): void {
    this.stopSessionWatch?.();
    this.stopSessionWatch = undefined;
  }

  /**
   * A task by id, whoever owns it; `undefined` when unknown or gone (ended, and past its TTL).
   * A task past its TTL that had not ended reads failed ("Task expired").
   */
  get(id: string): Promise<McpTaskRecord | undefined> {
    return this.manager.get(id);
  }

  /** The tasks of one owner (`session:<id>` or `principal:<id>`), sorted by id. */
  list(owner: string): Promise<McpTaskRecord[]> {
    return this.manager.list(owner);
  }

  /** A task of `owner`; -32602 when it is unknown, expired or someone else's (the same answer). */
  owned(owner: string, id: unknown): Promise<McpTaskRecord> {
    return this.manager.owned(owner, id);
  }

  /**
   * Creates a task in `working`, within the owner's cap (-32603 beyond it). The task is stored
   * when this resolves: a `tasks/get` finds it at once.
   *
   * @internal the engine's
   */
  create(init: NewTask, abort: (reason: unknown) => void): Promise<McpTaskRecord> {
    return this.manager.create(init, abort);
  }

  /**
   * Records how a task's work ended; ignored once the task is terminal (cancelled, expired).
   * When the store fails, the outcome is kept here (and this instance answers the task from
   * it) and retried until the store takes it or the task's TTL passes.
   *
   * @internal the engine's
   */
  settle(id: string, outcome: TaskOutcome): Promise<McpTaskRecord | undefined> {
    return this.manager.settle(id, outcome);
  }

  /**
   * Cancels a task: it becomes `cancelled` and its work is aborted (cooperatively: the work
   * sees its signal abort). Returns the task after the change, or as it was when it was
   * terminal already.
   */
  cancel(id: string, reason?: string): Promise<McpTaskRecord | undefined> {
    return this.manager.cancel(id, reason);
  }

  /** Cancels the live tasks of an owner (a legacy session that ended). */
  cancelOwned(owner: string, reason: string): Promise<void> {
    return this.manager.cancelOwned(owner, reason);
  }

  /**
   * Modern era: asks the client a question through the task. The task moves to
   * `input_required` with the question under `key`, and the answer comes with `tasks/update`.
   *
   * @internal the engine's
   */
  ask(id: string, key: string | undefined, request: InputRequest): Promise<JSONObject> {
    return this.manager.ask(id, key, request);
  }

  /**
   * Modern era (`tasks/update`): answers questions of a task. Answers to keys the task does not
   * wait for are ignored; an answer of the wrong shape is refused (-32602) before any is used.
   *
   * @internal the engine's
   */
  answer(id: string, responses: unknown): Promise<void> {
    return this.manager.answer(id, responses);
  }

  /**
   * Legacy era: the task waits for (`waiting`) or got (`!waiting`) the client's answer to a
   * request sent on the session; it is `input_required` while any is unanswered.
   *
   * @internal the engine's
   */
  waitingOnClient(id: string, waiting: boolean): Promise<void> {
    return this.manager.waitingOnClient(id, waiting);
  }

  /**
   * Sets the status message of a live task (progress of a modern task).
   *
   * @internal the engine's
   */
  describe(id: string, statusMessage: string): Promise<void> {
    return this.manager.describe(id, statusMessage);
  }

  /**
   * Waits until the task is terminal, at most `timeoutMs`, or until `signal` aborts. Resolves
   * with the task as it then is (not terminal on a timeout), `undefined` if it is gone.
   */
  awaitTerminal(id: string, timeoutMs: number, signal?: AbortSignal): Promise<McpTaskRecord | undefined> {
    return this.manager.awaitTerminal(id, timeoutMs, signal);
  }

  /** Whether the work of a task runs in this process. */
  isLive(id: string): boolean {
    return this.manager.isLive(id);
  }

  /** How many tasks have their work running in this process, or their outcome not stored yet. */
  get liveCount(): number {
    return this.manager.liveCount;
  }

  /**
   * Resolves once no task has its work running in this process and the outcome of every work
   * that ended here is stored (at once when so already).
   */
  whenIdle(): Promise<void> {
    return this.manager.whenIdle();
  }

  /**
   * Shutdown, last: the outcomes of works that ended here and that the store has not taken yet
   * are written once more, for at most `timeoutMs`; those it still does not take are logged by
   * task id and given up. Resolves their ids.
   *
   * @internal the shutdown's
   */
  storeOutcomes(timeoutMs: number): Promise<string[]> {
    return this.manager.storeOutcomes(timeoutMs);
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
  failLive(message: string): Promise<number> {
    return this.manager.failLive(message);
  }

  /**
   * Fails the live tasks that outlived their TTL (their work is stopped) and deletes the
   * terminal ones. Runs every `sweepIntervalMs`; returns how many tasks it acted on.
   */
  sweep(now?: number): Promise<number> {
    return this.manager.sweep(now);
  }
}
