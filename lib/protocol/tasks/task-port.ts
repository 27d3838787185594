/**
 * What the protocol asks of the task machinery: the engine, its task calls and the `tasks/*`
 * handlers are typed against this port, never against a framework service, so that the
 * protocol stays closed and can be driven by any implementation (the Nest task service today).
 */
import type { JSONObject } from '../messages/json-rpc';
import type { InputRequest } from '../messages/client-requests';
import type { McpTaskError, McpTaskRecord } from './task-record';

/**
 * What a new task is made of: who owns it, whom its bounds count it under (`owner` when absent),
 * what it runs, and the retention asked for.
 */
export type NewTask = Pick<
  McpTaskRecord,
  'owner' | 'quotaKey' | 'era' | 'revision' | 'sessionId' | 'method' | 'name'
> & {
  /** The retention the client asked for (2025-11-25 `task.ttl`), capped by the configured maximum. */
  readonly requestedTtlMs?: number;
};

/** How a task's work ended. */
export type TaskOutcome =
  { readonly type: 'result'; readonly result: JSONObject } | { readonly type: 'error'; readonly error: McpTaskError };

/** The task settings the protocol reads. */
export interface TaskPortSettings {
  /** Modern era: how long a task-capable call runs in place before it becomes a task. */
  readonly inlineMs: number;
  /** How long `tasks/result` waits for a terminal state. */
  readonly resultTimeoutMs: number;
}

/** The tasks as the protocol drives them. */
export interface TaskPort {
  readonly options: TaskPortSettings;
  /** A task by id, whoever owns it; `undefined` when unknown or expired. */
  get(id: string): Promise<McpTaskRecord | undefined>;
  /** The tasks of one owner (`session:<id>` or `principal:<id>`), sorted by id. */
  list(owner: string): Promise<McpTaskRecord[]>;
  /** A task of `owner`; rejects with -32602 when it is unknown, expired or someone else's. */
  owned(owner: string, id: unknown): Promise<McpTaskRecord>;
  /** Creates a task in `working`; `abort` stops its work when the task is cancelled or expires. */
  create(init: NewTask, abort: (reason: unknown) => void): Promise<McpTaskRecord>;
  /**
   * Stores how the task's work ended; resolves with the task as stored, or `undefined` when it
   * had already ended (cancelled, expired). When the store fails, the outcome is kept (and the
   * task read from it here) until the store takes it: it resolves with the task as kept.
   */
  settle(id: string, outcome: TaskOutcome): Promise<McpTaskRecord | undefined>;
  /** Cancels a task; resolves with the task after the cancellation, if it exists. */
  cancel(id: string, reason?: string): Promise<McpTaskRecord | undefined>;
  /** Modern era: asks the client through the task (`input_required`, answered by `tasks/update`). */
  ask(id: string, key: string | undefined, request: InputRequest): Promise<JSONObject>;
  /** Modern era (`tasks/update`): answers questions of a task. */
  answer(id: string, responses: unknown): Promise<void>;
  /** Legacy era: marks the task `input_required` while its work waits on the client, and back. */
  waitingOnClient(id: string, waiting: boolean): Promise<void>;
  /** Sets the task's status message. */
  describe(id: string, statusMessage: string): Promise<void>;
  /**
   * Waits until the task is terminal, at most `timeoutMs`, or until `signal` aborts; resolves with
   * the task as it then is (not terminal on a timeout), `undefined` if it is gone.
   */
  awaitTerminal(id: string, timeoutMs: number, signal?: AbortSignal): Promise<McpTaskRecord | undefined>;
  /** Whether the work of a task runs in this process. */
  isLive(id: string): boolean;
}
