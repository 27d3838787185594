/**
 * The `routes` section of the module options, validated and with its defaults, once, at startup.
 */
import type { McpRoutesOptions } from '../interfaces/mcp-route-options.interface';
import { fail, integer, section, stringList } from '../shared/option-checks';

/** The route-tool settings, resolved from the module options (`routes`). */
export interface RouteSettings {
  /** Lower-case header names forwarded from the MCP request, `authorization` first. */
  readonly forwardHeaders: readonly string[];
  readonly maxResponseBytes: number;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * Validates the `routes` section.
 * @throws McpConfigurationError naming the first bad option
 */
export function resolveRouteSettings(options: McpRoutesOptions | undefined): RouteSettings {
  const routes = section(options, 'routes');
  const names = (stringList(routes.forwardHeaders, 'routes.forwardHeaders') ?? []).map((name) => name.toLowerCase());
  for (const name of names) {
    if (!HEADER_NAME.test(name)) {
      fail('routes.forwardHeaders', `"${name}" is not a header name`);
    }
  }
  return {
    forwardHeaders: Object.freeze([...new Set(['authorization', ...names])]),
    maxResponseBytes: integer(routes.maxResponseBytes, 'routes.maxResponseBytes', 1024 * 1024, 1),
  };
}
