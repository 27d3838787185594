/**
 * The store contract of tasks. The record it keeps is the protocol's (`protocol/tasks/task-record`);
 * its types are re-exported here for the public API and the task service.
 */
import type { McpTaskRecord } from '../protocol/tasks/task-record';

export {
  isTerminal,
  taskQuotaKey,
  TERMINAL_STATUSES,
  type McpTaskError,
  type McpTaskRecord,
  type McpTaskStatus,
} from '../protocol/tasks/task-record';

/**
 * Where tasks live. Every method is async so that a shared store (Redis) can stand in for the
 * in-memory default without changing the callers.
 *
 * `createWithin` and `trimEnded` are optional, so that a store written before them keeps
 * working: without `createWithin` a creation counts the owner's live tasks with `countLive`
 * (per owner, not per quota key: anonymous callers then share one quota), and without
 * `trimEnded` ended tasks are kept until their TTL whatever their number. Implement both to have
 * `tasks.maxLivePerOwner` counted per caller in constant time and `tasks.maxKeptPerOwner`.
 *
 * @publicApi
 */
export interface McpTaskStore {
  /** Stores a new task. */
  create(record: McpTaskRecord): Promise<void>;
  /**
   * Creates `record` unless its quota key (`quotaKey ?? owner`) has `maxLive` tasks that are not
   * terminal, as one atomic step, in constant time whatever the number of tasks the key has.
   * Resolves whether it was created.
   */
  createWithin?(record: McpTaskRecord, maxLive: number): Promise<boolean>;
  /**
   * Deletes the terminal tasks of a quota key beyond the `maxKept` that ended last (the one that
   * ended first goes first); resolves how many were deleted.
   */
  trimEnded?(quotaKey: string, maxKept: number): Promise<number>;
  /** A task by id, or `undefined`. */
  get(id: string): Promise<McpTaskRecord | undefined>;
  /**
   * Applies `change` to the stored task atomically and stores what it returns. `change` returns
   * `undefined` to leave the task as it is. Resolves with the stored task after the change, or
   * `undefined` when there is no such task or nothing changed. A shared store may run `change`
   * more than once (compare-and-set retries when instances write the same task at once): it
   * must depend on nothing but the task it is given.
   */
  update(id: string, change: (current: McpTaskRecord) => McpTaskRecord | undefined): Promise<McpTaskRecord | undefined>;
  /** Removes a task; an unknown id is ignored. */
  delete(id: string): Promise<void>;
  /** The tasks of one owner, sorted by id. */
  list(owner: string): Promise<McpTaskRecord[]>;
  /** How many of an owner's tasks are not terminal. */
  countLive(owner: string): Promise<number>;
  /** The tasks whose `expiresAt` is at or before `now`. */
  due(now: number): Promise<McpTaskRecord[]>;
}
