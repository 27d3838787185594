// @ts-check
/**
 * The sandbox proxy of an MCP App's view (the Apps extension, 2026-01-26, "Sandbox proxy"), run
 * in the page `<console>/sandbox` serves (lib/console/console-sandbox.ts), which the console
 * frames with `sandbox="allow-scripts"`: an opaque origin, so nothing here reaches the console's
 * storage, cookies or DOM. It tells the console it is ready, receives the view's HTML in
 * `ui/notifications/sandbox-resource-ready`, loads it into an inner `srcdoc` frame (sandboxed the
 * same way, under this page's policy, which the srcdoc inherits) and then relays every message
 * between the console and the view, but the `ui/notifications/sandbox-*` ones, which are its own.
 *
 * A classic script, not a module: a module would be fetched in CORS mode with `Origin: null`.
 */
(() => {
  const host = window.parent;
  const SANDBOX_PREFIX = 'ui/notifications/sandbox-';
  /** The Permission Policy feature of each permission a resource may declare. */
  const FEATURES = /** @type {Record<string, string>} */ ({
    camera: 'camera',
    microphone: 'microphone',
    geolocation: 'geolocation',
    clipboardWrite: 'clipboard-write',
  });
  /** @type {HTMLIFrameElement | undefined} */
  let view;

  /**
   * @param {unknown} data
   * @returns {string | undefined}
   */
  function methodOf(data) {
    const method =
      typeof data === 'object' && data !== null ? /** @type {{ method?: unknown }} */ (data).method : undefined;
    return typeof method === 'string' ? method : undefined;
  }

  /** @param {{ html?: unknown, permissions?: unknown }} params */
  function load(params) {
    if (view !== undefined || typeof params.html !== 'string') {
      return; // one view per sandbox page
    }
    const permissions = typeof params.permissions === 'object' && params.permissions !== null ? params.permissions : {};
    view = document.createElement('iframe');
    // The sandbox override of the message is not honoured: the view gets scripts, nothing more.
    view.setAttribute('sandbox', 'allow-scripts');
    view.setAttribute('title', 'MCP App view');
    const allow = Object.keys(permissions)
      .map((name) => FEATURES[name])
      .filter((feature) => feature !== undefined);
    if (allow.length > 0) {
      view.setAttribute('allow', allow.join('; '));
    }
    view.srcdoc = params.html;
    document.body.append(view);
  }

  window.addEventListener('message', (event) => {
    const method = methodOf(event.data);
    if (event.source === host) {
      if (method === `${SANDBOX_PREFIX}resource-ready`) {
        const params = /** @type {{ params?: { html?: unknown, permissions?: unknown } }} */ (event.data).params;
        load(params ?? {});
      } else if (!method?.startsWith(SANDBOX_PREFIX)) {
        view?.contentWindow?.postMessage(event.data, '*');
      }
    } else if (view !== undefined && event.source === view.contentWindow) {
      if (!method?.startsWith(SANDBOX_PREFIX)) {
        host.postMessage(event.data, '*');
      }
    }
  });

  host.postMessage({ jsonrpc: '2.0', method: `${SANDBOX_PREFIX}proxy-ready`, params: {} }, '*');
})();
