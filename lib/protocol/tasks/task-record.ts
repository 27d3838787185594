/**
 * A task as the protocol knows it: its statuses and its stored record, plain JSON-compatible
 * data that any store can keep as it is.
 */
import type { JSONObject } from '../messages/json-rpc';
import type { McpEra, McpRevision } from '../messages/revisions';

/** Where a task stands. `completed`, `failed` and `cancelled` are terminal: final once reached. */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The terminal statuses. */
export const TERMINAL_STATUSES: ReadonlySet<McpTaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** Whether a status is terminal. */
export function isTerminal(status: McpTaskStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** The key the bounds on live and kept tasks count a task under (see `McpTaskRecord.quotaKey`). */
export function taskQuotaKey(task: Pick<McpTaskRecord, 'owner' | 'quotaKey'>): string {
  return task.quotaKey ?? task.owner;
}

/** The JSON-RPC error a failed task carries. */
export interface McpTaskError {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** A short description of the error. */
  readonly message: string;
  /** Extra information about the error, if any. */
  readonly data?: unknown;
}

/**
 * One task as stored: plain JSON-compatible data, so that a shared store can keep it as it is.
 *
 * @publicApi
 */
export interface McpTaskRecord {
  /** The task's id (`taskId` on the wire). */
  readonly id: string;
  /**
   * Who may see and drive the task: `session:<id>` for a legacy session's task, else
   * `principal:<id>` (the modern era, and legacy transports without sessions).
   */
  readonly owner: string;
  /**
   * Whom the bounds on live and kept tasks (`tasks.maxLivePerOwner`, `tasks.maxKeptPerOwner`)
   * count the task under: the quota key of the principal that created it (an anonymous HTTP
   * caller by its address, a legacy session's task by its principal). `owner` when absent.
   */
  readonly quotaKey?: string;
  /** The era of the call that created the task: it decides how the task is rendered. */
  readonly era: McpEra;
  /** The protocol revision of the call that created the task. */
  readonly revision?: McpRevision;
  /** The legacy session that owns the task, if any (its stream carries the task's messages). */
  readonly sessionId?: string;
  /**
   * The instance that runs the task's work, with several instances (`ClusterLink.instanceId`):
   * a task whose instance stopped is failed when it is next read. Absent with one instance, and
   * in records stored before it was kept.
   */
  readonly instanceId?: string;
  /** The request the task runs (`tools/call`) and what it names (the tool). */
  readonly method: string;
  /** The name the request names: the tool's. */
  readonly name: string;
  /** Where the task stands. */
  status: McpTaskStatus;
  /** A human-readable note on the current status. */
  statusMessage?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** When the task last changed, in epoch milliseconds. */
  updatedAt: number;
  /** How long the task is kept, from its creation. */
  readonly ttlMs: number;
  /** When the sweeper acts on the task: fails it if still live, deletes it if terminal. */
  expiresAt: number;
  /** How often clients are told to poll the task, in ms. */
  readonly pollIntervalMs: number;
  /** A completed task: what the call answered. */
  result?: JSONObject;
  /** A failed task: the JSON-RPC error the call answered. */
  error?: McpTaskError;
  /** Modern era, `input_required`: the questions waiting for `tasks/update`, by key. */
  inputRequests?: JSONObject;
}
