/**
 * Tasks through the test client: a `tools/call` started as a task (the `task` param in the
 * legacy era, the tasks extension declared in the modern one), polled, waited for with its
 * questions answered, answered by key (`tasks/update`) and cancelled.
 */
import type { CallToolResult } from 'nest-mcp';
import { McpTestError } from './mcp-test.errors';
import type {
  McpTestCallOptions,
  McpTestNotification,
  McpTestResult,
  McpTestTask,
  McpTestTaskWaitOptions,
} from './mcp-test.types';
import { type McpTestWire, type RequestExtras, withNotifications } from './wire';

/** The tasks extension of 2026-07-28. */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** The options of a request that needs the tasks extension declared (modern era). */
function withTasks<T extends McpTestCallOptions>(wire: McpTestWire, options: T): T & RequestExtras {
  if (wire.era === 'legacy') {
    return options;
  }
  const own = wire.capabilities;
  return { ...options, capabilities: { ...own, extensions: { ...own.extensions, [TASKS_EXTENSION]: {} } } };
}

export async function startTask(
  wire: McpTestWire,
  name: string,
  args: unknown,
  options: McpTestCallOptions & { ttlMs?: number },
): Promise<McpTestResult<McpTestTask>> {
  const params: Record<string, unknown> = { name, arguments: args };
  if (wire.era === 'legacy') {
    params.task = options.ttlMs === undefined ? {} : { ttl: options.ttlMs };
  }
  const created = await wire.request<Record<string, any>>('tools/call', params, withTasks(wire, options));
  const task = (wire.era === 'legacy' ? created.task : created) as McpTestTask | undefined;
  if (typeof task?.taskId !== 'string') {
    throw new Error(`tools/call ${name} was answered in place, not as a task: ${JSON.stringify(created)}`);
  }
  return withNotifications(task, created.notifications as McpTestNotification[]);
}

export function getTask(wire: McpTestWire, taskId: string, options: McpTestCallOptions): Promise<McpTestTask> {
  return wire.request<McpTestTask>('tasks/get', { taskId }, withTasks(wire, options));
}

/** `tasks/result` (legacy era), or `tasks/get` polled with its questions answered (modern era). */
export async function taskResult(
  wire: McpTestWire,
  taskId: string,
  options: McpTestTaskWaitOptions,
): Promise<McpTestResult<CallToolResult>> {
  if (wire.era === 'legacy') {
    return wire.request<CallToolResult>('tasks/result', { taskId }, options);
  }
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const answered = new Set<string>();
  for (;;) {
    const task = await getTask(wire, taskId, options);
    if (task.status === 'completed' && task.result !== undefined) {
      return withNotifications(task.result, []);
    }
    if (task.status === 'failed' && task.error !== undefined) {
      throw new McpTestError(task.error.code, task.error.message, task.error.data, 200, 'tasks/get');
    }
    if (TERMINAL.has(task.status)) {
      throw new Error(`Task ${taskId} ended ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`);
    }
    const open = Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key));
    if (task.status === 'input_required' && open.length > 0) {
      const responses: Record<string, unknown> = {};
      for (const [key, question] of open) {
        responses[key] = await wire.questions.answer(question.method, question.params ?? {}, 'input_required');
        answered.add(key);
      }
      await answerTask(wire, taskId, responses, options);
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`Task ${taskId} is still ${task.status} after ${options.timeoutMs ?? 10_000} ms`);
    }
    const interval = options.intervalMs ?? Math.min(Number(task.pollIntervalMs ?? 100), 100);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

export async function answerTask(
  wire: McpTestWire,
  taskId: string,
  inputResponses: Record<string, unknown>,
  options: McpTestCallOptions,
): Promise<void> {
  await wire.request('tasks/update', { taskId, inputResponses }, withTasks(wire, options));
}

export function cancelTask(
  wire: McpTestWire,
  taskId: string,
  options: McpTestCallOptions,
): Promise<Record<string, any>> {
  return wire.request('tasks/cancel', { taskId }, withTasks(wire, options));
}
