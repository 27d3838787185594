/**
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26): the extension's
 * declaration, the wire form of a view's `_meta.ui` and of a UI resource's contents, and which
 * tools are for views alone. Framework-free rules; the checks of what an application declares
 * are in `ui-checks.ts`.
 */
import { isJsonObject, type JSONObject } from '../messages/json-rpc';
import type { McpExtension } from '../extensions/extensions';

/** The id of the MCP Apps extension. @publicApi */
export const MCP_APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an MCP App view (an HTML5 document). @publicApi */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** The URI scheme every UI resource uses. */
export const UI_SCHEME = 'ui://';

/**
 * The extension as the server declares it once it has a view, in both eras: the text gives
 * the extension's settings (`mimeTypes`) for the client's declaration and none of the server's
 * own, so the server answers with the same shape, naming the one content type it serves.
 */
export const APPS_EXTENSION: McpExtension = Object.freeze({
  id: MCP_APPS_EXTENSION,
  settings: Object.freeze({ mimeTypes: Object.freeze([MCP_APP_MIME_TYPE]) }),
});

/**
 * Who may use a tool that has a view: `model`, the agent (it sees the tool in its list), and
 * `app`, the views of the same server (through the host). Both when absent.
 *
 * @publicApi
 */
export type McpUiVisibility = 'model' | 'app';

/**
 * The link from a tool to its view, advertised as the tool's `_meta.ui`.
 *
 * @publicApi
 */
export interface McpToolUiOptions {
  /**
   * The `ui://` URI of a UI resource of the same server, which hosts render the tool's results
   * with. Absent for a tool that only says who may use it (an app-only tool the server's views
   * call, which shows nothing of its own).
   */
  resourceUri?: string;
  /**
   * Who may use the tool. A tool without `'model'` is for views alone: a client that declared
   * no MCP Apps support does not see it in `tools/list`. Visibility is never authorization:
   * calling it by name still goes through the server's authentication, guards and scopes, and
   * works for any caller they let through.
   * @default ['model', 'app']
   */
  visibility?: McpUiVisibility[];
}

/**
 * The origins a view may reach, each an origin such as `https://api.example.com` (scheme and
 * host, an optional port, no path); a leading `*.` stands for any subdomain
 * (`https://*.example.com`). Each list left out is none: hosts apply a restrictive default.
 *
 * @publicApi
 */
export interface McpUiResourceCsp {
  /** Origins of network requests (fetch, XHR, WebSocket): CSP `connect-src`. */
  connectDomains?: string[];
  /** Origins of scripts, styles, images, fonts and media. */
  resourceDomains?: string[];
  /** Origins of nested iframes: CSP `frame-src`. */
  frameDomains?: string[];
  /** Allowed base URIs of the document: CSP `base-uri`. */
  baseUriDomains?: string[];
}

/**
 * One browser permission a view asks for: `{}` as the text writes it, or `true`. Hosts may
 * grant it; views must not assume they did.
 *
 * @publicApi
 */
export type McpUiPermission = Record<string, never> | true;

/** The browser permissions a view asks for (the iframe's `allow` attribute). @publicApi */
export interface McpUiResourcePermissions {
  /** The camera (Permissions Policy `camera`). */
  camera?: McpUiPermission;
  /** The microphone (Permissions Policy `microphone`). */
  microphone?: McpUiPermission;
  /** The position (Permissions Policy `geolocation`). */
  geolocation?: McpUiPermission;
  /** Writing to the clipboard (Permissions Policy `clipboard-write`). */
  clipboardWrite?: McpUiPermission;
}

/**
 * How hosts render a view: its `_meta.ui`, sent on the `resources/list` entry and on the
 * `resources/read` contents.
 *
 * @publicApi
 */
export interface McpUiResourceMeta {
  /** The origins the view may reach; none when absent. */
  csp?: McpUiResourceCsp;
  /** The browser permissions the view asks for. */
  permissions?: McpUiResourcePermissions;
  /** A dedicated sandbox origin for the view, in the format the host documents. */
  domain?: string;
  /** Whether the host draws a border and background around the view; the host decides when absent. */
  prefersBorder?: boolean;
}

/** The `_meta.ui` of a UI resource: the fields given, permissions as `{}`; `undefined` when none is. */
export function renderUiResourceMeta(meta: McpUiResourceMeta): JSONObject | undefined {
  const rendered: JSONObject = {};
  if (meta.csp !== undefined) {
    const csp: JSONObject = {};
    for (const [key, domains] of Object.entries(meta.csp)) {
      if (domains !== undefined) {
        csp[key] = [...(domains as string[])];
      }
    }
    rendered.csp = csp;
  }
  if (meta.permissions !== undefined) {
    const permissions: JSONObject = {};
    for (const [key, granted] of Object.entries(meta.permissions)) {
      if (granted !== undefined) {
        permissions[key] = {};
      }
    }
    rendered.permissions = permissions;
  }
  if (meta.domain !== undefined) {
    rendered.domain = meta.domain;
  }
  if (meta.prefersBorder !== undefined) {
    rendered.prefersBorder = meta.prefersBorder;
  }
  return Object.keys(rendered).length === 0 ? undefined : rendered;
}

/** The `_meta.ui` of a tool: its view and, when given, who may use it. */
export function renderToolUi(ui: McpToolUiOptions): JSONObject {
  const rendered: JSONObject = {};
  if (ui.resourceUri !== undefined) {
    rendered.resourceUri = ui.resourceUri;
  }
  if (ui.visibility !== undefined) {
    rendered.visibility = [...ui.visibility];
  }
  return rendered;
}

/**
 * Whether a tool is for views alone: its `_meta.ui.visibility` leaves the model out. Such a
 * tool is hidden from the `tools/list` of a client without MCP Apps support, and only there.
 */
export function isAppOnly(meta: JSONObject | undefined): boolean {
  const ui = meta?.ui;
  if (!isJsonObject(ui) || !Array.isArray(ui.visibility)) {
    return false;
  }
  return !ui.visibility.includes('model');
}

/**
 * `tools` without those for views alone; `tools` itself when there are none, so that a server
 * without app-only tools serves one list to every client.
 */
export function withoutAppOnly<T extends { readonly meta?: JSONObject }>(tools: readonly T[]): readonly T[] {
  const kept = tools.filter((tool) => !isAppOnly(tool.meta));
  return kept.length === tools.length ? tools : kept;
}

/** Whether an entry is a UI resource: a `ui://` URI with the MCP App MIME type. */
export function isUiResource(entry: { readonly uri: string; readonly mimeType?: string }): boolean {
  return entry.mimeType === MCP_APP_MIME_TYPE && entry.uri.startsWith(UI_SCHEME);
}

/**
 * The contents of a UI resource read: the HTML a view's handler returned, as `text` (a string)
 * or base64 `blob` (bytes), with the view's `_meta.ui`. Anything else is the handler's mistake.
 */
export function uiContents(html: unknown, uri: string, meta: JSONObject | undefined): JSONObject {
  let contents: JSONObject;
  if (typeof html === 'string') {
    contents = { text: html };
  } else if (html instanceof Uint8Array) {
    contents = { blob: Buffer.from(html.buffer, html.byteOffset, html.byteLength).toString('base64') };
  } else {
    throw new TypeError(`UI resource ${uri} must return its HTML as a string or bytes (got ${typeof html})`);
  }
  contents.mimeType = MCP_APP_MIME_TYPE;
  if (meta !== undefined) {
    contents._meta = { ui: meta };
  }
  return contents;
}
