/**
 * Which tools a client is shown, before each entry's access rules: the one rule `tools/list`
 * and `search_tools` share. A client that declared no MCP Apps support is not shown the tools
 * for views alone (it has no view to call them from); it still sees every other tool with its
 * `_meta.ui`, which the text has such a client ignore (the tool is then a standard one): leaving
 * it keeps one rendering for every client of a server without app-only tools, and the link costs
 * nothing. Only a server with app-only tools has a list that varies by client, cached apart for
 * each.
 */
import type { JSONObject } from '../messages/json-rpc';
import type { McpToolEntry } from '../calls/catalog';
import type { ResolvedRequest } from '../calls/resolved-request';
import { renderTool } from '../calls/render';
import { clientSupports } from '../extensions/extensions';
import { MCP_APPS_EXTENSION, withoutAppOnly } from '../apps/apps';
import type { HandlerContext } from './handler-context';

/** The tools shown to one client, with their renderings for its revision (`rendered[i]` is `entries[i]`'s). */
export interface ShownTools {
  readonly entries: readonly McpToolEntry[];
  readonly rendered: readonly JSONObject[];
  /** The list cache's variant of these renderings: `''` for every tool. */
  readonly variant: string;
  /** Whether what a client is shown differs by what it declared (the server has app-only tools). */
  readonly variesByClient: boolean;
}

/**
 * The tools shown to the client of `request`; `forModel`: those a model may call, whatever the
 * client declared (what `search_tools` searches: a view's tools are the host's, not the model's).
 */
export function shownTools(context: HandlerContext, request: ResolvedRequest, forModel = false): ShownTools {
  const { catalog, lists } = context;
  const tools = catalog.listTools();
  const modelTools = lists.memo('tools without app-only', catalog.version, () => withoutAppOnly(tools));
  const variesByClient = modelTools !== tools;
  const entries =
    forModel || (variesByClient && !clientSupports(request.clientCapabilities, MCP_APPS_EXTENSION))
      ? modelTools
      : tools;
  const variant = entries === tools ? '' : 'without app-only';
  const rendered = lists.get(
    'tools',
    catalog.version,
    request.revision,
    () => entries.map((tool) => renderTool(tool, request.revision)),
    variant,
  );
  return { entries, rendered, variant, variesByClient };
}
