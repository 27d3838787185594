// @ts-check
/**
 * The console as an MCP Apps host (the Apps extension, `io.modelcontextprotocol/ui`, 2026-01-26):
 * the view of a tool that names one (`_meta.ui.resourceUri`), rendered after a call the way a
 * web chat host does. Its HTML comes from `resources/read` through the console's own connection;
 * it runs two frames deep, in the console's sandbox page (`<console>/sandbox`, framed with
 * `sandbox="allow-scripts"`: an opaque origin, under the policy the server builds from the
 * resource's declared domains) and there in a `srcdoc` frame (console-ui/sandbox-proxy.js). The
 * console speaks the host side of the `ui/*` protocol through the AppBridge of
 * @modelcontextprotocol/ext-apps (bundled into vendor/ext-apps-bridge.js, loaded on first use):
 * the call's input and result, the host context, `tools/call` and `resources/read` from the view
 * answered with the console's connection and credentials (a tool whose visibility leaves out
 * `app` refused), size changes, open-link (a new tab, `noopener`, once the URL is shown) and
 * `ui/message` (shown).
 */
import { h } from './dom.js';
import { paramHeaders } from './mcp-client.js';
import { CLIENT_INFO } from './rpc-exchange.js';

/**
 * @typedef {import('./mcp-client.js').Json} Json
 * @typedef {import('./app.js').ConsoleContext} ConsoleContext
 * @typedef {{ name: string, inputSchema?: Json, _meta?: Json }} ViewTool
 * @typedef {{ element: HTMLElement, close(leaving?: boolean): void }} AppView
 */

/** The MIME type of an MCP App's HTML. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The largest view the console loads, in characters of HTML. */
const MAX_HTML_LENGTH = 8 * 1024 * 1024;
/** The tallest a view may make its frame, in CSS pixels. */
const MAX_HEIGHT = 4000;
const HOST_INFO = { name: CLIENT_INFO.name, version: CLIENT_INFO.version };

/**
 * The URI of the tool's view, if it has one (`_meta.ui.resourceUri`, or the deprecated flat key).
 *
 * @param {{ _meta?: Json }} tool
 * @returns {string | undefined}
 */
export function viewUriOf(tool) {
  const meta = tool._meta;
  const uri = /** @type {Json | undefined} */ (meta?.ui)?.resourceUri ?? meta?.['ui/resourceUri'];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

/**
 * Whether a view may call the tool: its `_meta.ui.visibility` includes `app`, or it has none
 * (the default is `["model", "app"]`).
 *
 * @param {ViewTool | undefined} tool
 * @returns {boolean}
 */
export function appMayCall(tool) {
  const visibility = /** @type {Json | undefined} */ (tool?._meta?.ui)?.visibility;
  return !Array.isArray(visibility) || visibility.includes('app');
}

/**
 * The view's HTML from its `resources/read` contents: text, or base64 UTF-8 bytes.
 *
 * @param {Json} content
 * @returns {string}
 */
function htmlOf(content) {
  if (typeof content.text === 'string') {
    return content.text;
  }
  if (typeof content.blob === 'string') {
    return new TextDecoder().decode(Uint8Array.from(atob(content.blob), (char) => char.charCodeAt(0)));
  }
  throw new Error('The view resource holds neither text nor blob');
}

/**
 * Renders the view of `tool` for one call (its arguments and result) and returns its section.
 *
 * @param {ConsoleContext} ctx
 * @param {{ tool: ViewTool, uri: string, args: Json, result: Json, findTool: (name: string) => ViewTool | undefined }} call
 * @returns {AppView}
 */
export function renderAppView(ctx, { tool, uri, args, result, findTool }) {
  const status = h('p', { class: 'hint' }, `Loading the view ${uri}…`);
  const notices = h('ul', { role: 'log', 'aria-label': 'View messages', class: 'log' });
  const element = h('section', { class: 'app-view', 'aria-label': 'App view' }, status, notices);
  /** @type {HTMLIFrameElement | undefined} */
  let frame;
  /** @type {import('./vendor/ext-apps-bridge.js').AppBridge | undefined} */
  let bridge;
  let closed = false;

  /** @param {string} text */
  const notice = (text) => {
    notices.append(h('li', {}, text));
  };

  async function start() {
    const read = await ctx.client.request('resources/read', { uri }, { answer: ctx.answer });
    const contents = /** @type {Json[]} */ (Array.isArray(read.contents) ? read.contents : []);
    const content = contents.find((each) => each.uri === uri) ?? contents[0];
    if (content === undefined || content.mimeType !== MCP_APP_MIME_TYPE) {
      throw new Error(`${uri} is not an MCP App (${MCP_APP_MIME_TYPE}): ${String(content?.mimeType)}`);
    }
    const html = htmlOf(content);
    if (html.length > MAX_HTML_LENGTH) {
      throw new Error(`${uri} is larger than ${MAX_HTML_LENGTH} characters`);
    }
    const ui = /** @type {Json} */ (/** @type {Json | undefined} */ (content._meta)?.ui ?? {});
    const csp = typeof ui.csp === 'object' && ui.csp !== null ? /** @type {Json} */ (ui.csp) : undefined;
    const permissions =
      typeof ui.permissions === 'object' && ui.permissions !== null ? /** @type {Json} */ (ui.permissions) : undefined;
    const { AppBridge, PostMessageTransport, buildAllowAttribute } = await import('./vendor/ext-apps-bridge.js');
    if (closed) {
      return;
    }
    // The sandbox page beside the console's page; the server turns `csp` into the view's policy.
    const sandbox = new URL('../sandbox', import.meta.url);
    if (csp !== undefined) {
      sandbox.searchParams.set('csp', JSON.stringify(csp));
    }
    frame = /** @type {HTMLIFrameElement} */ (
      h('iframe', {
        class: ui.prefersBorder === false ? 'app-frame' : 'app-frame bordered',
        title: `View ${uri}`,
        sandbox: 'allow-scripts',
        src: sandbox.href,
      })
    );
    const allow = buildAllowAttribute(permissions);
    if (allow !== '') {
      frame.setAttribute('allow', allow);
    }
    status.textContent = `View ${uri}`;
    element.insertBefore(frame, notices);
    const target = /** @type {Window} */ (frame.contentWindow);
    const dark = matchMedia('(prefers-color-scheme: dark)').matches;
    bridge = new AppBridge(
      null,
      HOST_INFO,
      { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, sandbox: { csp, permissions } },
      {
        hostContext: {
          theme: dark ? 'dark' : 'light',
          displayMode: 'inline',
          availableDisplayModes: ['inline'],
          containerDimensions: { width: frame.clientWidth, maxHeight: MAX_HEIGHT },
          platform: 'web',
          locale: navigator.language,
          timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
          userAgent: HOST_INFO.name,
          toolInfo: { tool: /** @type {any} */ (tool) },
        },
      },
    );
    bridge.onsandboxready = () => {
      if (closed) {
        return; // the frame is gone: nothing to load into
      }
      void bridge?.sendSandboxResourceReady({ html, csp, permissions });
    };
    bridge.oninitialized = () => {
      void bridge
        ?.sendToolInput({ arguments: /** @type {Record<string, unknown>} */ (args) })
        .then(() => bridge?.sendToolResult(/** @type {any} */ (result)));
    };
    bridge.onsizechange = ({ height }) => {
      if (frame !== undefined && typeof height === 'number' && Number.isFinite(height)) {
        frame.style.height = `${Math.min(Math.max(Math.ceil(height), 0), MAX_HEIGHT)}px`;
      }
    };
    bridge.oncalltool = async (params) => {
      const called = findTool(params.name);
      if (!appMayCall(called)) {
        notice(`Refused: the view called ${params.name}, which apps may not call`);
        throw new Error(`The tool ${params.name} is not callable from an app (its visibility leaves out "app")`);
      }
      notice(`The view called ${params.name}`);
      const callArgs = /** @type {Json} */ (params.arguments ?? {});
      const answer = await ctx.client.request(
        'tools/call',
        { name: params.name, arguments: callArgs },
        { answer: ctx.answer, headers: paramHeaders(called?.inputSchema, callArgs) },
      );
      return /** @type {any} */ (answer);
    };
    bridge.onreadresource = async (params) =>
      /** @type {any} */ (await ctx.client.request('resources/read', { uri: params.uri }, { answer: ctx.answer }));
    bridge.onmessage = async ({ role, content }) => {
      const text = content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join(' ');
      notice(`Message from the view (${role}): ${text}`);
      return {};
    };
    bridge.onopenlink = async ({ url }) => {
      const link = new URL(url);
      if (link.protocol !== 'https:' && link.protocol !== 'http:') {
        throw new Error(`Only http(s) links open: ${link.protocol}`);
      }
      notice(`The view opened ${link.href}`);
      window.open(link.href, '_blank', 'noopener,noreferrer');
      return {};
    };
    bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });
    bridge.onloggingmessage = ({ level, data }) => {
      notice(`[${level}] ${typeof data === 'string' ? data : JSON.stringify(data)}`);
    };
    await bridge.connect(new PostMessageTransport(target, target));
  }

  start().catch((/** @type {unknown} */ error) => {
    status.textContent = `The view did not load: ${error instanceof Error ? error.message : String(error)}`;
    status.className = 'error';
  });

  return {
    element,
    /** `leaving`: the page is about to leave the document, and its frames with it. */
    close(leaving = false) {
      closed = true;
      const ending = bridge;
      bridge = undefined;
      if (leaving) {
        // The frames unload with the page: no teardown can reach the view, and the element must
        // not come back with the page beside the view that replaces it.
        void ending?.close();
        element.remove();
        return;
      }
      // The view is told before it goes (ui/resource-teardown), but not waited for long.
      const told = ending?.teardownResource({ reason: 'replaced' }, { timeout: 500 }).catch(() => undefined);
      void Promise.resolve(told).finally(() => {
        void ending?.close();
        element.remove();
      });
    },
  };
}
