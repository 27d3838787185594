/**
 * The TTL rule of tasks, in one place. A task is kept until its `expiresAt`:
 * - past it, a task that is not terminal is failed with "Task expired" by whatever touches it
 *   next (a read, a change, its work's outcome, the sweeper), and its work stops; that failure
 *   stays readable for a grace time (`expiredGraceMs`), so that a client polling it reads why;
 * - past it, a terminal task is gone: no read answers it, and the sweeper deletes it.
 *
 * So a work that ends after its task's TTL never completes it (its completion would be
 * announced and then unreadable), and a task never reads `working` past its TTL.
 */
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { isTerminal, type McpTaskRecord } from '../interfaces/task-store.interface';

/** The status message (and error message) of a task failed by its TTL. */
export const TASK_EXPIRED = 'Task expired';

/** What the TTL makes of a stored task at `now`: `current` as it is, to be `expired`, or `gone`. */
export function underTtl(record: McpTaskRecord, now: number): 'current' | 'expired' | 'gone' {
  if (record.expiresAt > now) {
    return 'current';
  }
  return isTerminal(record.status) ? 'gone' : 'expired';
}

/** `record` failed by the server with `message` (-32603, the status message too). */
export function failedTask(record: McpTaskRecord, message: string): McpTaskRecord {
  return {
    ...record,
    status: 'failed',
    error: { code: McpErrorCode.InternalError, message },
    statusMessage: message,
  };
}

/** `record` failed by its TTL at `now`, readable as such for `graceMs`. */
export function expiredTask(record: McpTaskRecord, now: number, graceMs: number): McpTaskRecord {
  return { ...failedTask(record, TASK_EXPIRED), expiresAt: now + graceMs };
}
