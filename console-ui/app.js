// @ts-check
/**
 * The console's shell: the connection (credentials, kept in sessionStorage only), what the
 * server says about itself, and the tabs. Everything it shows comes from the MCP endpoint the
 * page names in its `mcp-endpoint` meta tag, through the same checks as any other client.
 */
import { h, clear, uid } from './dom.js';
import { McpConsoleClient, McpHttpError } from './mcp-client.js';
import { createAnswerer } from './input-requests.js';
import { createToolsPanel, describeError } from './tools-panel.js';
import { createResourcesPanel } from './resources-panel.js';
import { createPromptsPanel } from './prompts-panel.js';
import { createListenPanel } from './listen-panel.js';
import { createTasksPanel } from './tasks-panel.js';
import { createSkillsPanel } from './skills-panel.js';

/**
 * @typedef {import('./mcp-client.js').Json} Json
 * @typedef {import('./mcp-client.js').ServerDescription} ServerDescription
 * @typedef {{
 *   client: McpConsoleClient,
 *   server: () => ServerDescription | undefined,
 *   answer: import('./mcp-client.js').Answerer,
 *   complete: (ref: Json, argument: string, value: string, context?: Record<string, string>) => Promise<string[]>,
 *   watchTask: (task: Json, toolName: string) => void,
 *   showError: (error: unknown) => void,
 * }} ConsoleContext
 * @typedef {{ auth: 'none' | 'bearer' | 'apikey' | 'basic', token: string, apiKey: string,
 *   apiKeyHeader: string, username: string, password: string, extraHeaders: string,
 *   roots: Array<{ uri: string, name?: string }> }} Settings
 */

const endpoint = document.querySelector('meta[name="mcp-endpoint"]')?.getAttribute('content') ?? '/mcp';
/** @type {Record<string, string>} */
const endpoints = readJson(document.querySelector('meta[name="mcp-endpoints"]')?.getAttribute('content'));
// One entry per endpoint: two servers of one app keep their credentials apart.
const STORAGE_KEY = `nest-mcp-console:${endpoint}`;

/** @type {Settings} */
const DEFAULTS = {
  auth: 'none',
  token: '',
  apiKey: '',
  apiKeyHeader: 'X-API-Key',
  username: '',
  password: '',
  extraHeaders: '',
  roots: [],
};

/**
 * @param {string | null | undefined} text
 * @returns {Record<string, string>}
 */
function readJson(text) {
  try {
    const value = /** @type {unknown} */ (JSON.parse(text ?? '{}'));
    return typeof value === 'object' && value !== null ? /** @type {Record<string, string>} */ (value) : {};
  } catch {
    return {};
  }
}

/** @returns {Settings} */
function loadSettings() {
  try {
    const stored = sessionStorage.getItem(STORAGE_KEY);
    return { ...DEFAULTS, ...(stored === null ? {} : /** @type {Partial<Settings>} */ (JSON.parse(stored))) };
  } catch {
    return { ...DEFAULTS };
  }
}

/** @param {Settings} value */
function saveSettings(value) {
  // sessionStorage only: the credentials end with the tab, and no other tab or site reads them.
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(value));
}

/**
 * The headers the settings put on every request.
 *
 * @param {Settings} value
 * @returns {Record<string, string>}
 */
function headersOf(value) {
  /** @type {Record<string, string>} */
  const headers = {};
  for (const line of value.extraHeaders.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) {
      headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
  }
  if (value.auth === 'bearer' && value.token !== '') {
    headers.Authorization = `Bearer ${value.token}`;
  } else if (value.auth === 'apikey' && value.apiKey !== '') {
    headers[value.apiKeyHeader.trim() || 'X-API-Key'] = value.apiKey;
  } else if (value.auth === 'basic' && value.username !== '') {
    const bytes = new TextEncoder().encode(`${value.username}:${value.password}`);
    headers.Authorization = `Basic ${btoa(String.fromCharCode(...bytes))}`;
  }
  return headers;
}

let settings = loadSettings();
const client = new McpConsoleClient({ endpoint, credentials: () => ({ headers: headersOf(settings) }) });

// ---- The connection section ------------------------------------------------------------------

const status = h('p', { role: 'status', id: 'connection-status', class: 'status' }, 'Not connected');
const alertBox = h('div', { role: 'alert', class: 'alert', hidden: true });

/**
 * A labelled field.
 *
 * @param {string} label
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} control
 * @returns {HTMLElement}
 */
function field(label, control) {
  control.id ||= uid('field');
  return h('p', { class: 'field' }, h('label', { for: control.id }, label), control);
}

const authSelect = h(
  'select',
  {},
  h('option', { value: 'none' }, 'None'),
  h('option', { value: 'bearer' }, 'Bearer token'),
  h('option', { value: 'apikey' }, 'API key'),
  h('option', { value: 'basic' }, 'Basic'),
);
const tokenInput = h('input', { type: 'password', autocomplete: 'off', spellcheck: false });
const apiKeyInput = h('input', { type: 'password', autocomplete: 'off', spellcheck: false });
const apiKeyHeaderInput = h('input', { type: 'text', spellcheck: false });
const usernameInput = h('input', { type: 'text', autocomplete: 'username', spellcheck: false });
const passwordInput = h('input', { type: 'password', autocomplete: 'current-password' });
const extraHeadersInput = h('textarea', { rows: 2, spellcheck: false, placeholder: 'X-Header: value' });
const fields = {
  bearer: [field('Bearer token', tokenInput)],
  apikey: [field('API key', apiKeyInput), field('API key header', apiKeyHeaderInput)],
  basic: [field('Username', usernameInput), field('Password', passwordInput)],
};

function showAuthFields() {
  for (const [kind, elements] of Object.entries(fields)) {
    for (const element of elements) {
      element.hidden = authSelect.value !== kind;
    }
  }
}

function fillConnectionForm() {
  authSelect.value = settings.auth;
  tokenInput.value = settings.token;
  apiKeyInput.value = settings.apiKey;
  apiKeyHeaderInput.value = settings.apiKeyHeader;
  usernameInput.value = settings.username;
  passwordInput.value = settings.password;
  extraHeadersInput.value = settings.extraHeaders;
  showAuthFields();
}

authSelect.addEventListener('change', showAuthFields);

const connectionForm = h(
  'form',
  {
    class: 'connection',
    'aria-labelledby': 'connection-heading',
    onSubmit: (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      settings = {
        ...settings,
        auth: /** @type {Settings['auth']} */ (authSelect.value),
        token: tokenInput.value.trim(),
        apiKey: apiKeyInput.value.trim(),
        apiKeyHeader: apiKeyHeaderInput.value.trim() || 'X-API-Key',
        username: usernameInput.value,
        password: passwordInput.value,
        extraHeaders: extraHeadersInput.value,
      };
      saveSettings(settings);
      void connect();
    },
  },
  h('h2', { id: 'connection-heading' }, 'Connection'),
  h('p', { class: 'endpoint' }, 'Endpoint ', h('code', {}, endpoint)),
  field('Authentication', authSelect),
  fields.bearer,
  fields.apikey,
  fields.basic,
  field('Extra headers', extraHeadersInput),
  h('p', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Connect')),
  alertBox,
);

/** @param {unknown} error */
function showError(error) {
  clear(alertBox);
  alertBox.hidden = false;
  if (error instanceof McpHttpError) {
    alertBox.append(h('p', { class: 'alert-title' }, error.message));
    if (error.challenge !== undefined) {
      alertBox.append(h('p', {}, h('code', {}, `WWW-Authenticate: ${error.challenge}`)));
    }
    if (error.status === 401 || error.status === 403) {
      alertBox.append(h('p', {}, 'Enter the credentials this server expects, then Connect.'));
      status.textContent = 'Not connected';
    }
  } else {
    alertBox.append(h('p', { class: 'alert-title' }, describeError(error)));
  }
}

// ---- The server section ----------------------------------------------------------------------

const serverInfo = h('dl', { class: 'server-info' });
const serverSection = h(
  'section',
  { 'aria-labelledby': 'server-heading', class: 'server' },
  h('h2', { id: 'server-heading' }, 'Server'),
  serverInfo,
);

/** Human names of the endpoints the page's meta tag lists. */
const ENDPOINT_NAMES = /** @type {Record<string, string>} */ ({
  streamable: 'Streamable HTTP',
  simple: 'Simple POST',
  sse: 'HTTP+SSE (2024-11-05) events',
  sseMessages: 'HTTP+SSE (2024-11-05) messages',
});

/** @param {ServerDescription} server */
function showServer(server) {
  clear(serverInfo);
  const info = server.serverInfo;
  /** @type {Array<[string, string | Node | undefined]>} */
  const rows = [
    ['Name', info?.name],
    ['Title', info?.title],
    ['Version', info?.version],
    ['Description', info?.description],
    ['Instructions', server.instructions],
    ['Revisions', server.supportedVersions.join(', ')],
    ['Capabilities', h('pre', { class: 'json' }, JSON.stringify(server.capabilities, null, 2))],
    [
      'Endpoints',
      h(
        'ul',
        { class: 'plain' },
        Object.entries(endpoints).map(([kind, path]) =>
          h('li', {}, `${ENDPOINT_NAMES[kind] ?? kind}: `, h('code', {}, path)),
        ),
      ),
    ],
  ];
  for (const [term, value] of rows) {
    if (value !== undefined && value !== '') {
      serverInfo.append(h('dt', {}, term), h('dd', {}, value));
    }
  }
}

// ---- The tabs --------------------------------------------------------------------------------

const answer = createAnswerer({
  roots: () => settings.roots,
  setRoots: (/** @type {Settings['roots']} */ roots) => {
    settings = { ...settings, roots };
    saveSettings(settings);
  },
});

/** @type {ConsoleContext} */
const ctx = {
  client,
  server: () => client.server,
  answer,
  complete: (ref, argument, value, context) => client.complete(ref, argument, value, context),
  watchTask: (task, toolName) => tasks.watch(task, toolName),
  showError,
};

const tools = createToolsPanel(ctx);
const resources = createResourcesPanel(ctx);
const prompts = createPromptsPanel(ctx);
const tasks = createTasksPanel(ctx);
const skills = createSkillsPanel(ctx);
const listen = createListenPanel({
  ...ctx,
  // A list change the person listens to shows at once in its tab.
  onListChanged: (/** @type {'tools' | 'prompts' | 'resources'} */ kind) => {
    const panel = { tools, prompts, resources }[kind];
    panel?.refresh().catch(showError);
  },
});

const TABS = /** @type {Array<[string, { element: HTMLElement, refresh(): Promise<void> }, string | undefined]>} */ ([
  ['Tools', tools, 'tools'],
  ['Resources', resources, 'resources'],
  ['Prompts', prompts, 'prompts'],
  ['Notifications', listen, undefined],
  ['Tasks', tasks, undefined],
  // Listed when the server declares extensions; the panel looks for the Skills extension.
  ['Skills', skills, 'extensions'],
]);

const tablist = h('div', { role: 'tablist', 'aria-label': 'What the server offers', class: 'tabs' });
/** @type {HTMLButtonElement[]} */
const tabButtons = [];
/** @type {HTMLElement[]} */
const tabPanels = [];

/** @param {number} index */
function selectTab(index) {
  tabButtons.forEach((button, at) => {
    const selected = at === index;
    button.setAttribute('aria-selected', String(selected));
    button.tabIndex = selected ? 0 : -1;
    tabPanels[at].hidden = !selected;
  });
}

TABS.forEach(([label, panel], index) => {
  const id = uid('tab');
  const button = h(
    'button',
    { type: 'button', role: 'tab', id, 'aria-controls': `${id}-panel`, class: 'tab', onClick: () => selectTab(index) },
    label,
  );
  tabButtons.push(button);
  tablist.append(button);
  tabPanels.push(
    h(
      'section',
      { role: 'tabpanel', id: `${id}-panel`, 'aria-labelledby': id, tabindex: 0, class: 'panel' },
      panel.element,
    ),
  );
});

// The tab pattern of the WAI-ARIA practices: arrows move between tabs (and select them), Home/End
// go to the ends, Tab goes into the panel.
tablist.addEventListener('keydown', (event) => {
  const current = tabButtons.findIndex((button) => button === document.activeElement);
  if (current < 0) {
    return;
  }
  /** @type {Record<string, number>} */
  const moves = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: tabButtons.length - 1 };
  if (!(event.key in moves)) {
    return;
  }
  event.preventDefault();
  const next = (moves[event.key] + tabButtons.length) % tabButtons.length;
  selectTab(next);
  tabButtons[next].focus();
});
selectTab(0);

// ---- Connecting ------------------------------------------------------------------------------

async function connect() {
  status.textContent = 'Connecting…';
  alertBox.hidden = true;
  try {
    const server = await client.discover();
    showServer(server);
    const name = server.serverInfo?.title ?? server.serverInfo?.name ?? 'the server';
    const era = client.legacy === undefined ? '' : ` (a ${client.legacy.version} session)`;
    status.textContent = `Connected to ${name} ${server.serverInfo?.version ?? ''}`.trim() + era;
    const capabilities = server.capabilities;
    await Promise.all(
      // Each list tab once its capability is there; the Notifications tab always (it enables the
      // choices the server's capabilities allow); the Tasks tab has nothing to list.
      TABS.filter(
        ([label, , capability]) =>
          label === 'Notifications' || (capability !== undefined && capabilities[capability] !== undefined),
      ).map(([, panel]) => panel.refresh()),
    );
  } catch (error) {
    status.textContent = 'Not connected';
    showError(error);
    if (error instanceof McpHttpError && (error.status === 401 || error.status === 403)) {
      (authSelect.value === 'none' ? authSelect : tokenInput).focus();
    }
  }
}

const app = document.getElementById('app') ?? document.body;
clear(app);
app.append(
  h('header', { class: 'top' }, h('h1', {}, 'MCP console'), status),
  h(
    'div',
    { class: 'columns' },
    h('aside', { class: 'side' }, connectionForm, serverSection),
    h('div', { class: 'main' }, tablist, tabPanels),
  ),
);
fillConnectionForm();
// A legacy session ends with the page rather than waiting for the server to expire it.
addEventListener('pagehide', () => client.legacy?.close());
void connect();
