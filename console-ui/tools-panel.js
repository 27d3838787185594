// @ts-check
/**
 * The Tools tab: every tool of the server, and for the selected one its description, annotations
 * and schemas, a form generated from its input schema, and a call with its live progress, its
 * log lines, a Cancel button and the rendered result. Tools a call answers the definitions of
 * (`search_tools` of a server in search mode) join the list, marked found, so that a tool
 * `tools/list` leaves out can be called from its form too.
 */
import { h, clear, uid } from './dom.js';
import { McpHttpError, McpRpcError, MCP_TASKS_EXTENSION, paramHeaders } from './mcp-client.js';
import { isAbortError } from './rpc-exchange.js';
import { createSchemaForm, SchemaFormError } from './schema-form.js';
import { renderJson, renderToolResult } from './content-view.js';
import { renderAppView, viewUriOf } from './app-view.js';

/**
 * @typedef {import('./mcp-client.js').Json} Json
 * @typedef {import('./app.js').ConsoleContext} ConsoleContext
 * @typedef {{ name: string, title?: string, description?: string, inputSchema?: Json,
 *   outputSchema?: Json, annotations?: Record<string, unknown>,
 *   execution?: { taskSupport?: string }, _meta?: Json }} Tool
 */

/** The annotation hints worth a badge, as the person reads them. */
const BADGES = /** @type {Array<[string, boolean, string]>} */ ([
  ['readOnlyHint', true, 'read-only'],
  ['destructiveHint', true, 'destructive'],
  ['idempotentHint', true, 'idempotent'],
  ['openWorldHint', true, 'open-world'],
]);

/**
 * Every page of a list method, in order.
 *
 * @param {ConsoleContext} ctx
 * @param {string} method
 * @param {string} key the result's array (`tools`, `resources`...)
 * @returns {Promise<Json[]>}
 */
export async function listAll(ctx, method, key) {
  /** @type {Json[]} */
  const all = [];
  /** @type {string | undefined} */
  let cursor;
  do {
    const result = await ctx.client.request(method, cursor === undefined ? {} : { cursor });
    all.push(.../** @type {Json[]} */ (result[key] ?? []));
    cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
  } while (cursor !== undefined);
  return all;
}

/**
 * The tool definitions a call's result holds as `structuredContent.tools` (the answer of a
 * server's search tool), each with a name and an input schema; none otherwise.
 *
 * @param {Json} answer
 * @returns {Tool[]}
 */
export function toolsFoundIn(answer) {
  const content = /** @type {Json | undefined} */ (answer.structuredContent);
  const tools = content?.tools;
  if (!Array.isArray(tools)) {
    return [];
  }
  return /** @type {Tool[]} */ (
    tools.filter(
      (tool) =>
        typeof tool === 'object' &&
        tool !== null &&
        typeof tool.name === 'string' &&
        typeof tool.inputSchema === 'object' &&
        tool.inputSchema !== null,
    )
  );
}

/**
 * How an error reads in a result region.
 *
 * @param {unknown} error
 * @returns {string}
 */
export function describeError(error) {
  if (isAbortError(error)) {
    return 'Cancelled';
  }
  if (error instanceof McpRpcError) {
    return `Error ${error.code}: ${error.message}`;
  }
  if (error instanceof McpHttpError) {
    return error.message;
  }
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * @param {ConsoleContext} ctx
 * @returns {{ element: HTMLElement, refresh(): Promise<void> }}
 */
export function createToolsPanel(ctx) {
  const list = h('ul', { role: 'list', 'aria-label': 'Tools', class: 'item-list' });
  const detail = h('div', { class: 'detail' }, h('p', { class: 'hint' }, 'Choose a tool.'));
  const element = h('div', { class: 'split' }, h('nav', { class: 'items' }, list), detail);
  /** @type {Tool[]} */
  let tools = [];
  /** @type {Tool[]} what tools/list answered */
  let listed = [];
  /** @type {Map<string, Tool>} tools a call found that tools/list leaves out, by name */
  const found = new Map();
  /** @type {string | undefined} */
  let selected;
  // One view per tool, kept while its definition is the same: a call left running while the
  // person looks at another tool is still there, progress and result, when they come back.
  /** @type {Map<string, { definition: string, view: ToolView }>} */
  const views = new Map();

  /** @param {Tool} tool */
  function show(tool) {
    // A view leaving the page takes its MCP App down: a detached frame loses its document.
    const leaving = selected === undefined ? undefined : views.get(selected);
    selected = tool.name;
    for (const button of list.querySelectorAll('button')) {
      button.setAttribute('aria-current', String(button.dataset.name === tool.name));
    }
    const definition = JSON.stringify(tool);
    let kept = views.get(tool.name);
    if (kept?.definition !== definition) {
      kept?.view.hide();
      kept = {
        definition,
        view: toolView(
          ctx,
          tool,
          (name) => tools.find((each) => each.name === name),
          (more) => {
            for (const each of more) {
              found.set(each.name, each);
            }
            showList();
          },
        ),
      };
      views.set(tool.name, kept);
    }
    if (leaving !== undefined && leaving !== kept) {
      leaving.view.hide();
    }
    clear(detail);
    detail.append(kept.view.element);
    kept.view.show();
  }

  async function refresh() {
    listed = /** @type {Tool[]} */ (await listAll(ctx, 'tools/list', 'tools'));
    showList();
  }

  /** The listed tools, then those found that the list leaves out. */
  function showList() {
    const names = new Set(listed.map((tool) => tool.name));
    const extra = [...found.values()].filter((tool) => !names.has(tool.name));
    tools = [...listed, ...extra];
    clear(list);
    for (const tool of tools) {
      const note = names.has(tool.name) ? tool.title : 'found';
      list.append(
        h(
          'li',
          {},
          h(
            'button',
            { type: 'button', class: 'item', 'data-name': tool.name, onClick: () => show(tool) },
            h('span', { class: 'item-name' }, tool.name),
            note === undefined ? null : h('span', { class: 'item-note' }, note),
          ),
        ),
      );
    }
    const again = tools.find((tool) => tool.name === selected);
    if (again !== undefined) {
      show(again);
    } else if (tools.length === 0) {
      clear(detail);
      detail.append(h('p', { class: 'hint' }, 'This server has no tools.'));
    }
  }

  return { element, refresh };
}

/**
 * @typedef {{ element: HTMLElement, hide: () => void, show: () => void }} ToolView a tool's
 *   page; `hide` takes its MCP App down when the page leaves the panel, `show` brings it back
 */

/**
 * The selected tool: what it is, its form and its call.
 *
 * @param {ConsoleContext} ctx
 * @param {Tool} tool
 * @param {(name: string) => Tool | undefined} findTool another tool of the list, by name (for its view's calls)
 * @param {(tools: Tool[]) => void} onFound the tools a result holds the definitions of
 * @returns {ToolView}
 */
function toolView(ctx, tool, findTool, onFound) {
  const prefix = uid('tool');
  const badges = BADGES.filter(([hint, value]) => tool.annotations?.[hint] === value).map(([, , label]) =>
    h('span', { class: 'badge' }, label),
  );
  const schemaForm = createSchemaForm(tool.inputSchema ?? { type: 'object' }, { idPrefix: prefix });
  // 2026-07-28 lists no per-tool task support: the server decides per call whether a call that
  // may become a task does. So the choice is offered whenever the server has the tasks extension,
  // and forced for a tool a 2025-11-25 listing marks as task-only.
  const taskSupport = tool.execution?.taskSupport;
  const extensions = /** @type {Json | undefined} */ (ctx.server()?.capabilities.extensions);
  const offersTasks =
    taskSupport === 'required' || (taskSupport !== 'forbidden' && extensions?.[MCP_TASKS_EXTENSION] !== undefined);
  const asTask = h('input', {
    type: 'checkbox',
    id: `${prefix}-task`,
    checked: taskSupport === 'required',
    disabled: taskSupport === 'required',
  });
  const call = h('button', { type: 'submit', class: 'primary' }, 'Call');
  const cancel = h('button', { type: 'button', disabled: true }, 'Cancel');
  const progress = h('progress', { 'aria-label': 'Progress', max: 1, value: 0, hidden: true });
  const progressText = h('span', { class: 'progress-text', 'aria-live': 'polite' });
  const log = h('ul', { role: 'log', 'aria-label': 'Log', class: 'log' });
  const result = h('div', { role: 'region', 'aria-label': 'Result', class: 'result', 'aria-live': 'polite' });
  // The tool's MCP App, when it names one: rendered after each call (app-view.js).
  const viewUri = viewUriOf(tool);
  /** @type {import('./app-view.js').AppView | undefined} */
  let appView;
  /** @type {{ args: Json, answer: Json } | undefined} the last call, which the view shows */
  let viewed;

  /** Renders the view of the last call, unless it is up already. */
  function openView() {
    if (viewUri !== undefined && viewed !== undefined && appView === undefined) {
      appView = renderAppView(ctx, { tool, uri: viewUri, args: viewed.args, result: viewed.answer, findTool });
      result.after(appView.element);
    }
  }

  /** @param {boolean} [leaving] the page leaves the panel (its frames unload) */
  function closeView(leaving = false) {
    appView?.close(leaving);
    appView = undefined;
  }
  /** @type {AbortController | undefined} */
  let running;

  cancel.addEventListener('click', () => running?.abort());

  const form = h(
    'form',
    {
      'aria-label': 'Arguments',
      class: 'call-form',
      onSubmit: (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        void run();
      },
    },
    schemaForm.element,
    offersTasks
      ? h(
          'p',
          { class: 'check' },
          asTask,
          h('label', { for: `${prefix}-task` }, 'Run as task'),
          h('span', { class: 'hint' }, '(the server answers with a task when the tool can run as one)'),
        )
      : null,
    h('p', { class: 'actions' }, call, cancel),
  );

  async function run() {
    /** @type {Json} */
    let args;
    try {
      args = /** @type {Json} */ (schemaForm.value() ?? {});
    } catch (error) {
      if (error instanceof SchemaFormError) {
        return; // the form shows its problems
      }
      throw error;
    }
    running?.abort();
    const controller = new AbortController();
    running = controller;
    clear(log);
    clear(result);
    viewed = undefined;
    closeView();
    progress.hidden = true;
    progressText.textContent = '';
    call.disabled = true;
    cancel.disabled = false;
    try {
      const answer = await ctx.client.request(
        'tools/call',
        { name: tool.name, arguments: args },
        {
          signal: controller.signal,
          tasks: asTask.checked,
          headers: paramHeaders(tool.inputSchema, args),
          answer: ctx.answer,
          onProgress: ({ progress: done, total, message }) => {
            progress.hidden = false;
            if (typeof total === 'number' && total > 0) {
              progress.max = total;
              progress.value = done;
            } else {
              progress.removeAttribute('value');
            }
            progressText.textContent = `${done}${total === undefined ? '' : ` / ${total}`}${message === undefined ? '' : ` — ${message}`}`;
          },
          onLog: ({ level, logger, data }) => {
            const text = typeof data === 'string' ? data : JSON.stringify(data);
            log.append(h('li', {}, `[${level}] ${logger === undefined ? '' : `${logger}: `}${text}`));
          },
        },
      );
      if (answer.resultType === 'task') {
        const taskId = String(answer.taskId);
        result.append(h('p', {}, `Started task ${taskId}`));
        ctx.watchTask(answer, tool.name);
      } else {
        result.append(renderToolResult(answer, tool.outputSchema));
        viewed = { args, answer };
        openView();
        const more = toolsFoundIn(answer);
        if (more.length > 0) {
          onFound(more);
        }
      }
    } catch (error) {
      if (error instanceof McpHttpError) {
        ctx.showError(error);
      }
      result.append(h('p', { class: 'error' }, describeError(error)));
    } finally {
      if (running === controller) {
        running = undefined;
        call.disabled = false;
        cancel.disabled = true;
      }
    }
  }

  const element = h(
    'article',
    { class: 'tool', 'aria-labelledby': `${prefix}-name` },
    h('h3', { id: `${prefix}-name` }, tool.name),
    tool.title === undefined ? null : h('p', { class: 'title' }, tool.title),
    tool.description === undefined ? null : h('p', { class: 'description' }, tool.description),
    badges.length === 0 ? null : h('p', { class: 'badges' }, badges),
    h('details', {}, h('summary', {}, 'Input schema'), renderJson(tool.inputSchema ?? {})),
    tool.outputSchema === undefined
      ? null
      : h('details', {}, h('summary', {}, 'Output schema'), renderJson(tool.outputSchema)),
    form,
    h('div', { class: 'progress' }, progress, progressText),
    h('h4', {}, 'Log'),
    log,
    h('h4', {}, 'Result'),
    result,
  );
  return { element, hide: () => closeView(true), show: openView };
}
