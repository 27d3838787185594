// @ts-check
/**
 * The Notifications tab: a `subscriptions/listen` stream the person opens and closes, asking for
 * the list changes and the resource updates the server offers, with every notification it
 * brings as a line of a live log. A list change also refreshes that list's tab.
 */
import { h, uid } from './dom.js';
import { McpHttpError } from './mcp-client.js';
import { describeError } from './tools-panel.js';

/**
 * @typedef {import('./mcp-client.js').Json} Json
 * @typedef {import('./app.js').ConsoleContext} ConsoleContext
 * @typedef {'tools' | 'prompts' | 'resources'} ListKind
 */

/** The log keeps the latest lines only: a stream left open for hours must not grow the page without end. */
const MAX_LINES = 500;

/** The list-changed notifications, and the tab each one concerns. */
const LIST_CHANGES = /** @type {Record<string, ListKind>} */ ({
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
});

/**
 * The Notifications tab (see the file comment).
 *
 * @param {ConsoleContext & { onListChanged: (kind: ListKind) => void }} ctx
 * @returns {{ element: HTMLElement, refresh(): Promise<void> }}
 */
export function createListenPanel(ctx) {
  const prefix = uid('listen');
  /** @type {Array<[ListKind, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged', string]>} */
  const flags = [
    ['tools', 'toolsListChanged', 'Tools list changed'],
    ['prompts', 'promptsListChanged', 'Prompts list changed'],
    ['resources', 'resourcesListChanged', 'Resources list changed'],
  ];
  const boxes = flags.map(([kind, flag, label]) => {
    const box = h('input', { type: 'checkbox', id: `${prefix}-${kind}`, checked: false });
    return { kind, flag, box, row: h('p', { class: 'check' }, box, h('label', { for: box.id }, label)) };
  });
  const uris = h('input', {
    type: 'text',
    id: `${prefix}-uris`,
    spellcheck: false,
    placeholder: 'notes://index, file:///a.txt',
    'aria-describedby': `${prefix}-uris-help`,
  });
  const listenButton = h('button', { type: 'submit', class: 'primary' }, 'Listen');
  const stopButton = h('button', { type: 'button', disabled: true }, 'Stop');
  // A live region but not `role="status"`: the page's one status is the connection's.
  const status = h('p', { class: 'listen-status', id: `${prefix}-status`, 'aria-live': 'polite' }, 'Stopped');
  const log = h('ul', { role: 'log', 'aria-label': 'Notifications', class: 'log' });
  /** @type {AbortController | undefined} */
  let listening;

  /** Enables what the server offers: the list flags it announces changes of, the URIs when it takes subscriptions. */
  function syncCapabilities() {
    const capabilities = /** @type {Record<string, Json | undefined>} */ (ctx.server()?.capabilities ?? {});
    const busy = listening !== undefined;
    for (const { kind, box } of boxes) {
      const offered = capabilities[kind]?.listChanged === true;
      // Checked by default once offered; what the person unchecks stays unchecked.
      if (offered !== (box.dataset.offered === 'true')) {
        box.checked = offered;
        box.dataset.offered = String(offered);
      }
      box.disabled = busy || !offered;
    }
    uris.disabled = busy || capabilities.resources?.subscribe !== true;
    listenButton.disabled = busy || ctx.server() === undefined;
    stopButton.disabled = !busy;
  }

  /** @param {Json} message */
  function addLine(message) {
    const now = new Date();
    const { _meta: _subscription, ...params } = /** @type {Json} */ (message.params ?? {});
    log.append(
      h(
        'li',
        {},
        h('time', { dateTime: now.toISOString() }, now.toLocaleTimeString()),
        ' ',
        h('code', {}, String(message.method)),
        ' ',
        JSON.stringify(params),
      ),
    );
    while (log.children.length > MAX_LINES) {
      log.firstElementChild?.remove();
    }
  }

  /** @param {Json} honoured */
  function describeAcknowledged(honoured) {
    const parts = Object.entries(honoured)
      .filter(([, value]) => value === true || (Array.isArray(value) && value.length > 0))
      .map(([key, value]) => (Array.isArray(value) ? `${key} (${value.join(', ')})` : key));
    return `Listening (acknowledged: ${parts.length === 0 ? 'nothing' : parts.join(', ')})`;
  }

  async function listen() {
    syncCapabilities();
    if (listening !== undefined || ctx.server() === undefined) {
      return;
    }
    /** @type {Json} */
    const notifications = {};
    for (const { flag, box } of boxes) {
      if (box.checked && !box.disabled) {
        notifications[flag] = true;
      }
    }
    const subscriptions = uris.disabled
      ? []
      : uris.value
          .split(',')
          .map((uri) => uri.trim())
          .filter((uri) => uri !== '');
    if (subscriptions.length > 0) {
      notifications.resourceSubscriptions = subscriptions;
    }
    const controller = new AbortController();
    listening = controller;
    syncCapabilities();
    status.textContent = 'Starting…';
    try {
      await ctx.client.listen(notifications, {
        signal: controller.signal,
        onAcknowledged: (honoured) => {
          status.textContent = describeAcknowledged(honoured);
        },
        onNotification: (message) => {
          addLine(/** @type {Json} */ (/** @type {unknown} */ (message)));
          const kind = typeof message.method === 'string' ? LIST_CHANGES[message.method] : undefined;
          if (kind !== undefined) {
            ctx.onListChanged(kind);
          }
        },
      });
      status.textContent = controller.signal.aborted ? 'Stopped' : 'Stopped (the server ended the stream)';
    } catch (error) {
      if (error instanceof McpHttpError) {
        ctx.showError(error);
      }
      status.textContent = describeError(error);
    } finally {
      if (listening === controller) {
        listening = undefined;
      }
      syncCapabilities();
    }
  }

  stopButton.addEventListener('click', () => listening?.abort());

  const element = h(
    'div',
    { class: 'listen' },
    h(
      'form',
      {
        'aria-label': 'Listen',
        class: 'call-form',
        onSubmit: (/** @type {SubmitEvent} */ event) => {
          event.preventDefault();
          void listen();
        },
      },
      h(
        'fieldset',
        {},
        h('legend', {}, 'Notifications to hear'),
        boxes.map(({ row }) => row),
      ),
      h(
        'p',
        { class: 'field' },
        h('label', { for: uris.id }, 'Resource URIs'),
        uris,
        h('span', { id: `${prefix}-uris-help`, class: 'hint help' }, 'Comma-separated: their updates are heard.'),
      ),
      h('p', { class: 'actions' }, listenButton, stopButton),
    ),
    status,
    h('h4', {}, 'Notifications'),
    log,
  );

  // The shell refreshes the tabs of the server's capabilities only: the controls also follow the
  // server each time the tab is shown, so they match whichever server the page connected to.
  if (typeof IntersectionObserver === 'function') {
    new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        syncCapabilities();
      }
    }).observe(element);
  }
  // And when the person comes to the controls: the tab may have been shown before connecting.
  element.addEventListener('focusin', syncCapabilities);
  element.addEventListener('pointerenter', syncCapabilities);
  syncCapabilities();

  return {
    element,
    refresh: async () => syncCapabilities(),
  };
}
