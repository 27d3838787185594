/**
 * Search mode (`toolSearch`): `tools/list` answers the search tool and the tools kept listed,
 * and the search tool finds the others among the tools the caller would see in `tools/list`
 * without search mode (the same rule, `shownTools`, and the same access checks,
 * `visibleToCaller`), the tools for views alone left out: they are the host's, not the model's.
 * Every tool stays callable by name (`tools.handler.ts`).
 */
import type { JSONObject } from '../messages/json-rpc';
import type { McpToolEntry } from '../calls/catalog';
import type { ResolvedRequest } from '../calls/resolved-request';
import { renderTool } from '../calls/render';
import { isAppOnly } from '../apps/apps';
import {
  foundTool,
  searchToolEntry,
  withSearch,
  type ToolSearchQuery,
  type ToolSearchSettings,
} from '../search/tool-search';
import { queryTerms, rankTools, toolWords, type ToolWords } from '../search/tool-score';
import type { HandlerContext } from './handler-context';
import { listResult, visibleToCaller } from './list-result';
import { shownTools } from './tool-lists';

/**
 * `tools/list` in search mode: the search tool, the tools `listed` names, and, for a client with
 * MCP Apps support, the tools for views alone (its host must know them to let its views call
 * them; they never reach the model). Sorted by name, as every list, for its cursors.
 */
export function handleSearchModeList(
  context: HandlerContext,
  request: ResolvedRequest,
  settings: ToolSearchSettings,
): Promise<JSONObject> {
  const { catalog, lists } = context;
  const shown = shownTools(context, request);
  const entries = lists.memo(`tools in search mode|${shown.variant}`, catalog.version, () =>
    [
      searchTool(context, settings),
      ...shown.entries.filter((tool) => settings.listed.has(tool.name) || isAppOnly(tool.meta)),
    ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  );
  const rendered = lists.get(
    'tools in search mode',
    catalog.version,
    request.revision,
    () => entries.map((tool) => renderTool(tool, request.revision)),
    shown.variant,
  );
  return listResult(context, request, 'tools', entries, rendered, (tool) => tool.name as string, shown.variesByClient);
}

/** The search tool of one call: its arguments are checked as any tool's, then it searches for `request`'s caller. */
export function searchToolFor(
  context: HandlerContext,
  request: ResolvedRequest,
  settings: ToolSearchSettings,
): McpToolEntry {
  return withSearch(searchTool(context, settings), (query) => search(context, request, query));
}

function searchTool(context: HandlerContext, settings: ToolSearchSettings): McpToolEntry {
  return context.lists.memo('search tool', context.catalog.version, () => searchToolEntry(settings));
}

/** The tools the caller may see that match `query`, best first, as `{ tools: [definitions] }`. */
async function search(context: HandlerContext, request: ResolvedRequest, query: ToolSearchQuery): Promise<JSONObject> {
  const pool = shownTools(context, request, true);
  const words = context.lists.memo<readonly ToolWords[]>('tool search words', context.catalog.version, () =>
    pool.entries.map((tool) =>
      toolWords({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input.jsonSchema,
      }),
    ),
  );
  const positions = pool.entries.map((_tool, position) => position);
  const visible = (await visibleToCaller(context, request, pool.entries, positions)) ?? positions;
  const hits = rankTools(
    visible.map((position) => words[position]),
    queryTerms(query.query),
    query.limit,
  );
  return { tools: hits.map((hit) => foundTool(pool.rendered[visible[hit.position]])) };
}
