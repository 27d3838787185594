/**
 * How a task is written on the wire, per era: the 2025-11-25 `Task` (`ttl`, `pollInterval`,
 * details fetched with `tasks/result`) and the 2026-07-28 `DetailedTask` (`ttlMs`,
 * `pollIntervalMs`, with its result, error or questions inline).
 */
import type { JSONObject } from '../messages/json-rpc';
import { META_KEYS } from '../messages/request-meta';
import type { McpTaskRecord } from './task-record';

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** The names of the duration fields, per era: 2026-07-28 puts the unit in the name. */
const DURATION_FIELDS = {
  legacy: { ttl: 'ttl', pollInterval: 'pollInterval' },
  modern: { ttl: 'ttlMs', pollInterval: 'pollIntervalMs' },
} as const;

/** The fields every task carries, named for its era. */
function renderBase(task: McpTaskRecord, era: McpTaskRecord['era']): JSONObject {
  const names = DURATION_FIELDS[era];
  const rendered: JSONObject = {
    taskId: task.id,
    status: task.status,
    createdAt: iso(task.createdAt),
    lastUpdatedAt: iso(task.updatedAt),
    [names.ttl]: task.ttlMs,
    [names.pollInterval]: task.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) {
    rendered.statusMessage = task.statusMessage;
  }
  return rendered;
}

/** The 2025-11-25 `Task`: `tasks/get`, `tasks/list`, `tasks/cancel` and `notifications/tasks/status`. */
export function renderLegacyTask(task: McpTaskRecord): JSONObject {
  return renderBase(task, 'legacy');
}

/** The 2026-07-28 `DetailedTask`: `tasks/get` and `notifications/tasks`. */
export function renderModernTask(task: McpTaskRecord): JSONObject {
  const rendered = renderBase(task, 'modern');
  if (task.status === 'input_required') {
    rendered.inputRequests = task.inputRequests ?? {};
  } else if (task.status === 'completed' && task.result !== undefined) {
    rendered.result = task.result;
  } else if (task.status === 'failed' && task.error !== undefined) {
    rendered.error = task.error;
  }
  return rendered;
}

/** The answer to a call that became a task: `{ task }` (2025-11-25), flat with `resultType: "task"` (2026-07-28). */
export function renderCreateTaskResult(task: McpTaskRecord): JSONObject {
  if (task.era === 'legacy') {
    return { task: renderLegacyTask(task) };
  }
  return { ...renderBase(task, 'modern'), resultType: 'task' };
}

/** A task's notification: `notifications/tasks/status` (2025-11-25) or `notifications/tasks` (2026-07-28). */
export function taskNotificationOf(task: McpTaskRecord): { method: string; params: JSONObject } {
  return task.era === 'legacy'
    ? { method: 'notifications/tasks/status', params: renderLegacyTask(task) }
    : { method: 'notifications/tasks', params: renderModernTask(task) };
}

/** The `_meta` that ties a 2025-11-25 message to its task. */
export function relatedTaskMeta(taskId: string): JSONObject {
  return { [META_KEYS.relatedTask]: { taskId } };
}
