/**
 * tasks/get, tasks/result, tasks/list, tasks/cancel (2025-11-25 core methods) and tasks/get,
 * tasks/update, tasks/cancel (2026-07-28 extension `io.modelcontextprotocol/tasks`). A task is
 * only ever found by its owner: another caller's task is answered as an unknown one (-32602).
 */
import { McpErrorCode, isJsonObject, type JSONObject } from '../messages/json-rpc';
import { McpError } from '../messages/mcp-error';
import { paginate } from '../messages/pagination';
import { taskOwner } from '../calls/task-owner';
import type { ResolvedRequest } from '../calls/resolved-request';
import type { HandlerContext } from './handler-context';
import { declaresTasksExtension, MCP_TASKS_EXTENSION } from '../tasks/task-mode';
import { relatedTaskMeta, renderLegacyTask, renderModernTask } from '../tasks/task-render';
import { isTerminal, type McpTaskRecord } from '../tasks/task-record';
import type { TaskPort } from '../tasks/task-port';
import { extensionRequired } from '../extensions/extensions';

/**
 * The task service, once the request may use it: in the modern era the request must declare
 * the tasks extension (-32021).
 */
function serviceFor(context: HandlerContext, request: ResolvedRequest): TaskPort {
  const { tasks } = context;
  if (tasks === undefined) {
    throw new McpError(McpErrorCode.MethodNotFound, `Method not found: ${request.method}`);
  }
  if (request.era === 'modern' && !declaresTasksExtension(request.clientCapabilities)) {
    throw extensionRequired(
      MCP_TASKS_EXTENSION,
      `Missing required client capability: ${request.method} needs the ${MCP_TASKS_EXTENSION} extension`,
    );
  }
  return tasks;
}

/** The task the request names, if its caller owns it. */
async function ownedTask(context: HandlerContext, request: ResolvedRequest): Promise<[TaskPort, McpTaskRecord]> {
  const tasks = serviceFor(context, request);
  return [tasks, await tasks.owned(taskOwner(request), request.params.taskId)];
}

export async function handleTasksGet(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const [, task] = await ownedTask(context, request);
  return request.era === 'legacy' ? renderLegacyTask(task) : renderModernTask(task);
}

/**
 * 2025-11-25: waits for the task to end, then answers what the call would have answered: its
 * result (tagged with the task), or its error. While it waits, the task's requests to the
 * client travel on this request's stream.
 */
export async function handleTasksResult(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const [tasks, task] = await ownedTask(context, request);
  const detach = context.attachTaskStream(task.id, request.facts.channel);
  let settled: McpTaskRecord | undefined;
  try {
    settled = await tasks.awaitTerminal(task.id, tasks.options.resultTimeoutMs, request.scope.signal);
  } finally {
    detach();
  }
  if (request.scope.aborted) {
    throw request.scope.reason;
  }
  if (settled === undefined) {
    throw new McpError(McpErrorCode.InvalidParams, `Task not found: ${task.id}`);
  }
  if (!isTerminal(settled.status)) {
    throw new McpError(
      McpErrorCode.InternalError,
      `Task ${task.id} did not end within ${tasks.options.resultTimeoutMs} ms`,
    );
  }
  if (settled.status === 'cancelled') {
    throw new McpError(McpErrorCode.InvalidParams, `Task cancelled: ${task.id}`);
  }
  if (settled.result === undefined) {
    const error = settled.error ?? { code: McpErrorCode.InternalError, message: 'Internal error' };
    throw new McpError(error.code, error.message, error.data);
  }
  const { result } = settled;
  const meta = isJsonObject(result._meta) ? result._meta : {};
  return { ...result, _meta: { ...meta, ...relatedTaskMeta(task.id) } };
}

/** 2025-11-25: the caller's tasks, by id, in pages. */
export async function handleTasksList(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const tasks = serviceFor(context, request);
  const owned = await tasks.list(taskOwner(request));
  const page = paginate(owned, (task) => task.id, request.params.cursor, context.options.pageSize);
  const result: JSONObject = { tasks: page.items.map(renderLegacyTask) };
  if (page.nextCursor !== undefined) {
    result.nextCursor = page.nextCursor;
  }
  return result;
}

/**
 * Cancels a task. 2025-11-25 answers the cancelled task and refuses a terminal one (-32602);
 * 2026-07-28 acknowledges with an empty result, terminal or not.
 */
export async function handleTasksCancel(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const [tasks, task] = await ownedTask(context, request);
  if (request.era === 'legacy' && isTerminal(task.status)) {
    throw new McpError(McpErrorCode.InvalidParams, `Task ${task.id} is already ${task.status}`);
  }
  const after = await tasks.cancel(task.id);
  if (request.era === 'modern') {
    return {};
  }
  if (after !== undefined && after.status !== 'cancelled') {
    // It ended on its own while the cancellation was on its way.
    throw new McpError(McpErrorCode.InvalidParams, `Task ${task.id} is already ${after.status}`);
  }
  return renderLegacyTask(after ?? task);
}

/** 2026-07-28: answers questions of an `input_required` task; an acknowledgement, eventually consistent. */
export async function handleTasksUpdate(context: HandlerContext, request: ResolvedRequest): Promise<JSONObject> {
  const [tasks, task] = await ownedTask(context, request);
  await tasks.answer(task.id, request.params.inputResponses);
  return {};
}
