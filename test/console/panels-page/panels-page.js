// @ts-check
/* global document, location, window */
/**
 * The test page of the console's panels: mounts the one panel named by `?panel=` with a real
 * McpConsoleClient of the app's own /mcp, as the console's shell does, and hands the test what it
 * needs to drive it (`window.panelTest`). What the shell would answer through dialogs (`answer`)
 * and how it shows errors are stubs that record what they get.
 */
import { h } from '../../../console-ui/dom.js';
import { McpConsoleClient } from '../../../console-ui/mcp-client.js';
import { createResourcesPanel } from '../../../console-ui/resources-panel.js';
import { createPromptsPanel } from '../../../console-ui/prompts-panel.js';
import { createListenPanel } from '../../../console-ui/listen-panel.js';
import { createTasksPanel } from '../../../console-ui/tasks-panel.js';

/** @type {string[]} */
const cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});

const client = new McpConsoleClient({ endpoint: '/mcp', credentials: () => ({ headers: {} }) });
const capabilities = new URLSearchParams(location.search).get('capabilities');
/** @type {unknown[]} */
const answered = [];
/** @type {string[]} */
const errors = [];
/** @type {ReturnType<typeof createTasksPanel> | undefined} */
let tasks;

/** @type {import('../../../console-ui/app.js').ConsoleContext} */
const ctx = {
  client,
  // `?capabilities=<JSON>` stands for a server that offers less than the sample.
  server: () =>
    client.server === undefined || capabilities === null
      ? client.server
      : { ...client.server, capabilities: JSON.parse(capabilities) },
  // The person at the page, as a stub: every question is accepted with the name Ada.
  answer: async (inputRequests) => {
    answered.push(inputRequests);
    return Object.fromEntries(
      Object.keys(inputRequests).map((key) => [key, { action: 'accept', content: { name: 'Ada' } }]),
    );
  },
  complete: (ref, argument, value, context) => client.complete(ref, argument, value, context),
  watchTask: (task, toolName) => tasks?.watch(task, toolName),
  showError: (error) => errors.push(String(error)),
};

const listChanges = /** @type {HTMLElement} */ (document.getElementById('list-changes'));
const kind = new URLSearchParams(location.search).get('panel');
/** @type {{ element: HTMLElement, refresh(): Promise<void> }} */
let panel;
if (kind === 'resources') {
  panel = createResourcesPanel(ctx);
} else if (kind === 'prompts') {
  panel = createPromptsPanel(ctx);
} else if (kind === 'listen') {
  panel = createListenPanel({
    ...ctx,
    onListChanged: (list) => listChanges.append(h('li', {}, list)),
  });
} else {
  tasks = createTasksPanel(ctx);
  panel = tasks;
}

await client.discover();
(document.getElementById('app') ?? document.body).append(panel.element);
await panel.refresh();

Object.assign(window, { panelTest: { client, ctx, panel, tasks, answered, errors, cspViolations, ready: true } });
