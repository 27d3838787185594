// @ts-check
/**
 * The Tasks tab: the tasks started from this page (a tool called with "Run as task"), each polled
 * with `tasks/get` until it ends, with its status, its latest status message, its result or
 * error, a Cancel button, and an Answer button while the task waits for the person's input.
 * Every tasks/* request declares the tasks extension, as the 2026-07-28 wire requires.
 */
import { h, clear } from './dom.js';
import { McpHttpError } from './mcp-client.js';
import { renderToolResult } from './content-view.js';
import { describeError } from './tools-panel.js';

/**
 * @typedef {import('./mcp-client.js').Json} Json
 * @typedef {import('./app.js').ConsoleContext} ConsoleContext
 * @typedef {{ taskId: string, status: string, statusMessage?: string, createdAt?: string,
 *   lastUpdatedAt?: string, pollIntervalMs?: number, inputRequests?: Record<string, import('./mcp-client.js').InputRequest>,
 *   result?: Json, error?: { code: number, message: string } }} Task
 */

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const DEFAULT_POLL_MS = 1000;
/** The shortest poll the page makes, whatever the server suggests: it shares the server with others. */
const MIN_POLL_MS = 250;

/**
 * @param {string | undefined} iso
 * @returns {HTMLElement | string}
 */
function timeOf(iso) {
  if (typeof iso !== 'string') {
    return '';
  }
  const date = new Date(iso);
  return h('time', { dateTime: iso }, Number.isNaN(date.getTime()) ? iso : date.toLocaleString());
}

/**
 * The Tasks tab (see the file comment).
 *
 * @param {ConsoleContext} ctx
 * @returns {{ element: HTMLElement, refresh(): Promise<void>, watch(task: Json, toolName: string): void }}
 */
export function createTasksPanel(ctx) {
  const list = h('ul', { role: 'list', 'aria-label': 'Tasks', class: 'task-list plain' });
  const empty = h('p', { class: 'hint' }, 'No tasks yet: call a tool with “Run as task”.');
  const element = h('div', { class: 'tasks' }, empty, list);
  /** @type {Map<string, { poll(): Promise<void> }>} */
  const watched = new Map();

  function showEmpty() {
    empty.hidden = list.children.length > 0;
  }

  /**
   * @param {Json} created the CreateTaskResult
   * @param {string} toolName
   */
  function watch(created, toolName) {
    const taskId = String(created.taskId);
    if (watched.has(taskId)) {
      return;
    }
    /** @type {Task} */
    let task = /** @type {Task} */ (/** @type {unknown} */ ({ ...created, taskId }));
    const controller = new AbortController();
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    let polling = false;

    const statusText = h('span', { class: 'task-status' });
    const statusMessage = h('dd', { class: 'task-message' });
    const createdCell = h('dd', {});
    const updated = h('dd', {});
    const problem = h('p', { class: 'error', hidden: true });
    const outcome = h('div', { class: 'result', role: 'region', 'aria-label': `Result of task ${taskId}` });
    const cancelButton = h('button', { type: 'button' }, 'Cancel task');
    const answerButton = h('button', { type: 'button', class: 'primary', hidden: true }, 'Answer');
    const removeButton = h('button', { type: 'button' }, 'Remove');
    let answering = false;

    const article = h(
      'article',
      { class: 'task', 'aria-label': `Task ${taskId}` },
      h('h3', {}, toolName),
      h(
        'dl',
        { class: 'task-info' },
        h('dt', {}, 'Task'),
        h('dd', {}, h('code', {}, taskId)),
        h('dt', {}, 'Status'),
        h('dd', {}, statusText),
        h('dt', {}, 'Status message'),
        statusMessage,
        h('dt', {}, 'Created'),
        createdCell,
        h('dt', {}, 'Updated'),
        updated,
      ),
      h('p', { class: 'actions' }, answerButton, cancelButton, removeButton),
      problem,
      outcome,
    );
    const item = h('li', {}, article);

    /** @param {unknown} error */
    function showProblem(error) {
      if (error instanceof McpHttpError) {
        ctx.showError(error);
      }
      problem.hidden = false;
      problem.textContent = describeError(error);
    }

    function render() {
      statusText.textContent = task.status;
      statusText.className = `task-status task-status-${task.status}`;
      statusMessage.textContent = task.statusMessage ?? '';
      clear(createdCell);
      createdCell.append(timeOf(task.createdAt));
      clear(updated);
      updated.append(timeOf(task.lastUpdatedAt));
      const terminal = TERMINAL.has(task.status);
      cancelButton.disabled = terminal;
      answerButton.hidden = task.status !== 'input_required';
      answerButton.disabled = answering;
      clear(outcome);
      if (task.status === 'completed' && task.result !== undefined) {
        outcome.append(renderToolResult(task.result));
      } else if (task.status === 'failed' && task.error !== undefined) {
        outcome.append(h('p', { class: 'error' }, `Error ${task.error.code}: ${task.error.message}`));
      }
    }

    function schedule() {
      clearTimeout(timer);
      if (controller.signal.aborted || TERMINAL.has(task.status)) {
        return;
      }
      const every = typeof task.pollIntervalMs === 'number' ? task.pollIntervalMs : DEFAULT_POLL_MS;
      timer = setTimeout(() => void poll(), Math.max(MIN_POLL_MS, every));
    }

    /** One `tasks/get`, then the next one scheduled while the task runs. */
    async function poll() {
      if (polling || controller.signal.aborted) {
        return;
      }
      clearTimeout(timer);
      polling = true;
      try {
        const answer = await ctx.client.request('tasks/get', { taskId }, { signal: controller.signal, tasks: true });
        task = /** @type {Task} */ (/** @type {unknown} */ ({ ...answer, taskId }));
        problem.hidden = true;
        render();
        schedule();
      } catch (error) {
        if (controller.signal.aborted) {
          return;
        }
        // Polling stops on an error (an expired task, a lost connection); Refresh starts it again.
        showProblem(error);
      } finally {
        polling = false;
      }
    }

    async function cancel() {
      cancelButton.disabled = true;
      try {
        await ctx.client.request('tasks/cancel', { taskId }, { signal: controller.signal, tasks: true });
        await poll();
      } catch (error) {
        if (!controller.signal.aborted) {
          showProblem(error);
          cancelButton.disabled = TERMINAL.has(task.status);
        }
      }
    }
    cancelButton.addEventListener('click', () => void cancel());

    async function answerTask() {
      if (answering || task.inputRequests === undefined) {
        return;
      }
      answering = true;
      answerButton.disabled = true;
      try {
        const inputResponses = await ctx.answer(task.inputRequests, { signal: controller.signal });
        await ctx.client.request(
          'tasks/update',
          { taskId, inputResponses },
          { signal: controller.signal, tasks: true },
        );
        answering = false;
        await poll();
      } catch (error) {
        if (!controller.signal.aborted) {
          showProblem(error);
        }
      } finally {
        answering = false;
        answerButton.disabled = false;
      }
    }
    answerButton.addEventListener('click', () => void answerTask());

    removeButton.addEventListener('click', () => {
      // Removing stops the polling and any request of this task still under way.
      controller.abort();
      clearTimeout(timer);
      watched.delete(taskId);
      item.remove();
      showEmpty();
    });

    watched.set(taskId, {
      poll: async () => {
        if (!TERMINAL.has(task.status)) {
          await poll();
        }
      },
    });
    list.prepend(item);
    showEmpty();
    render();
    schedule();
  }

  async function refresh() {
    await Promise.all([...watched.values()].map((entry) => entry.poll()));
  }

  return { element, refresh, watch };
}
