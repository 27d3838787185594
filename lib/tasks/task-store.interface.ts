/**
 * The store contract of tasks. The record it keeps is the protocol's (`protocol/tasks/task-record`);
 * its types are re-exported here for the public API and the task service.
 */
import type { McpTaskRecord } from '../protocol/tasks/task-record';

export {
  isTerminal,
  TERMINAL_STATUSES,
  type McpTaskError,
  type McpTaskRecord,
  type McpTaskStatus,
} from '../protocol/tasks/task-record';

/**
 * Where tasks live. Every method is async so that a shared store (Redis) can stand in for the
 * in-memory default without changing the callers.
 *
 * @publicApi
 */
export interface TaskStore {
  create(record: McpTaskRecord): Promise<void>;
  get(id: string): Promise<McpTaskRecord | undefined>;
  /**
   * Applies `change` to the stored task atomically and stores what it returns. `change` returns
   * `undefined` to leave the task as it is. Resolves with the stored task after the change, or
   * `undefined` when there is no such task or nothing changed. A shared store may run `change`
   * more than once (compare-and-set retries when instances write the same task at once): it
   * must depend on nothing but the task it is given.
   */
  update(id: string, change: (current: McpTaskRecord) => McpTaskRecord | undefined): Promise<McpTaskRecord | undefined>;
  delete(id: string): Promise<void>;
  /** The tasks of one owner, sorted by id. */
  list(owner: string): Promise<McpTaskRecord[]>;
  /** How many of an owner's tasks are not terminal. */
  countLive(owner: string): Promise<number>;
  /** The tasks whose `expiresAt` is at or before `now`. */
  due(now: number): Promise<McpTaskRecord[]>;
}
