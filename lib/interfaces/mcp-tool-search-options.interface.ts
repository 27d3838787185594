/**
 * Search mode (`toolSearch`): for a server with many tools, `tools/list` answers a search tool
 * instead of every tool, and every tool stays callable by name.
 *
 * @publicApi
 */
export interface McpToolSearchOptions {
  /**
   * The search tool's name. A tool of the server registered under it stops the application
   * (`McpConfigurationError`): pick another name here, or rename that tool.
   * @default 'search_tools'
   */
  name?: string;
  /**
   * The search tool's description, which the model reads to know when to search and how to call
   * what it finds.
   * @default a text that says what is searched and that a tool found is called by its name
   */
  description?: string;
  /**
   * Tools that stay in `tools/list` beside the search tool, by name: those the model should see
   * from the start. A name no tool has lists nothing (tools may be registered at runtime).
   * Listed tools are still searched; the caller's scopes and visibility guards apply to them as
   * to any tool.
   * @default []
   * @example ['notes_list', 'create_note']
   */
  listed?: string[];
  /**
   * How many tools one search answers when the query gives no `limit`.
   * @default 10 (or `maxLimit` when lower)
   */
  defaultLimit?: number;
  /**
   * The largest `limit` a query may ask for (at most 100); a larger one is refused with an
   * `isError` result, as any invalid argument.
   * @default 25
   */
  maxLimit?: number;
  /**
   * The longest `query`, in characters (at most 4096); a longer one is refused with an `isError`
   * result, as any invalid argument.
   * @default 256
   */
  maxQueryLength?: number;
}
