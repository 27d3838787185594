/**
 * The `toolSearch` option, validated and with its defaults, once, at startup: whether the server
 * answers `tools/list` with a search tool (`lib/protocol/search`), and how that tool is bounded.
 */
import type { McpToolSearchOptions } from '../interfaces/mcp-tool-search-options.interface';
import { fail, integer, section, stringList, text } from '../shared/option-checks';
import { DEFAULT_SEARCH_DESCRIPTION, type ToolSearchSettings } from '../protocol/search/tool-search';
import { TOOL_NAME } from './registry-entries';

export type { ToolSearchSettings } from '../protocol/search/tool-search';

/** The highest `toolSearch.maxLimit`: one answer stays a page of definitions, not the catalog. */
const MAX_LIMIT = 100;
/** The highest `toolSearch.maxQueryLength`: a query is a few words. */
const MAX_QUERY_LENGTH = 4096;

/**
 * Validates `toolSearch`; `undefined` (search mode off) when absent or `false`.
 * @throws McpConfigurationError naming the first bad option
 */
export function resolveToolSearchSettings(
  options: boolean | McpToolSearchOptions | undefined,
): ToolSearchSettings | undefined {
  if (options === undefined || options === false) {
    return undefined;
  }
  const search = options === true ? {} : section(options, 'toolSearch');
  const name = text(search.name, 'toolSearch.name', false) ?? 'search_tools';
  if (!TOOL_NAME.test(name)) {
    fail('toolSearch.name', 'must be 1 to 128 characters among A-Z, a-z, 0-9, "_", "-", "." and "/"');
  }
  const maxLimit = integer(search.maxLimit, 'toolSearch.maxLimit', 25, 1, MAX_LIMIT);
  return {
    name,
    description: text(search.description, 'toolSearch.description', false) ?? DEFAULT_SEARCH_DESCRIPTION,
    listed: new Set(stringList(search.listed, 'toolSearch.listed') ?? []),
    defaultLimit: integer(search.defaultLimit, 'toolSearch.defaultLimit', Math.min(10, maxLimit), 1, maxLimit),
    maxLimit,
    maxQueryLength: integer(search.maxQueryLength, 'toolSearch.maxQueryLength', 256, 1, MAX_QUERY_LENGTH),
  };
}
