/**
 * MCP Apps in the registry: a tool's `_meta` with its link to its view, a view's resource entry
 * (its MIME type, its `_meta.ui`, its HTML read through the handler), and the check that every
 * tool's view is a UI resource of the same server.
 */
import type { McpResourceEntry, McpToolEntry } from '../protocol/calls/catalog';
import type {
  McpResourceDefinition,
  McpToolDefinition,
  McpUiResourceDefinition,
} from '../interfaces/mcp-definitions.interface';
import { isJsonObject, type JSONObject } from '../protocol/messages/json-rpc';
import { isUiResource, MCP_APP_MIME_TYPE, renderToolUi, renderUiResourceMeta, uiContents } from '../protocol/apps/apps';
import { toolUiProblem, uiResourceMetaProblem, uiUriProblem } from '../protocol/apps/ui-checks';
import { McpConfigurationError } from '../errors/mcp-configuration.error';
import { INVALID_ENTRY } from '../shared/mcp.messages';

/**
 * A tool's advertised `_meta`: its own, with `ui` from the `ui` option. The link is checked
 * whichever way it is given (`ui`, or `_meta.ui` written by hand); both at once is refused.
 */
export function toolMeta(definition: McpToolDefinition): JSONObject | undefined {
  const { ui, _meta: meta, name } = definition;
  if (meta !== undefined && !isJsonObject(meta)) {
    throw new McpConfigurationError(INVALID_ENTRY('tool', name, '_meta must be an object'));
  }
  if (ui !== undefined && meta?.ui !== undefined) {
    throw new McpConfigurationError(
      INVALID_ENTRY('tool', name, 'the ui option and _meta.ui are both set: give the view with ui only'),
    );
  }
  const link = ui ?? meta?.ui;
  if (link === undefined) {
    return meta;
  }
  const problem = toolUiProblem(link);
  if (problem !== undefined) {
    throw new McpConfigurationError(INVALID_ENTRY('tool', name, `ui${problem.at} ${problem.reason}`));
  }
  // A `_meta.ui` written by hand goes out as written (fields of a later revision of the text included).
  return ui === undefined ? meta : { ...meta, ui: renderToolUi(ui) };
}

/** The `ui://` URI of the view a tool links to, if it links to one. */
export function viewOf(tool: McpToolEntry): string | undefined {
  const ui = tool.meta?.ui;
  return isJsonObject(ui) && typeof ui.resourceUri === 'string' ? ui.resourceUri : undefined;
}

/**
 * Why `tool`'s view is not served by `resources` (the server's resource table), or `undefined`
 * when it is (or the tool has none).
 */
export function unlinkedView(
  tool: McpToolEntry,
  resourceAt: (uri: string) => McpResourceEntry | undefined,
): string | undefined {
  const uri = viewOf(tool);
  if (uri === undefined) {
    return undefined;
  }
  const resource = resourceAt(uri);
  if (resource !== undefined && isUiResource(resource)) {
    return undefined;
  }
  return INVALID_ENTRY(
    'tool',
    tool.name,
    `ui.resourceUri "${uri}" names no UI resource of this server: declare it with @McpUiResource or apps.views`,
  );
}

/** A view as a resource entry: the fixed MIME type, `_meta.ui`, and the handler's HTML as contents. */
export function uiResourceEntry(
  definition: McpUiResourceDefinition,
  resourceEntry: (definition: McpResourceDefinition) => McpResourceEntry,
): McpResourceEntry {
  const { uri, listed } = definition;
  const key = String(uri);
  const uriProblem = uiUriProblem(uri);
  if (uriProblem !== undefined) {
    throw new McpConfigurationError(INVALID_ENTRY('UI resource', key, `uri ${uriProblem}`));
  }
  const problem = uiResourceMetaProblem(definition);
  if (problem !== undefined) {
    throw new McpConfigurationError(INVALID_ENTRY('UI resource', key, `${problem.at.slice(1)} ${problem.reason}`));
  }
  if (listed !== undefined && typeof listed !== 'boolean') {
    throw new McpConfigurationError(INVALID_ENTRY('UI resource', key, 'listed must be a boolean'));
  }
  const ui = renderUiResourceMeta(definition);
  const { name, title, description, icons, cacheTtlMs, scopes, visible, handler } = definition;
  const entry = resourceEntry({
    uri,
    name,
    title,
    description,
    icons,
    cacheTtlMs,
    scopes,
    visible,
    mimeType: MCP_APP_MIME_TYPE,
    _meta: ui === undefined ? undefined : { ui },
    handler: async (call, native) => uiContents(await handler(call, native), uri, ui),
  });
  return { ...entry, listed: listed ?? true };
}
