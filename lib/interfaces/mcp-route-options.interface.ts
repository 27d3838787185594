import type { ToolAnnotations } from '../protocol/messages/mcp-types';
import type { McpServersOption } from './mcp-definitions.interface';

/**
 * The options of `@McpRoute()` and `@McpRoutes()`: how an existing HTTP route is shown as a tool.
 *
 * @publicApi
 */
export interface McpRouteOptions extends McpServersOption {
  /** The tool name. Defaults to `<controller>_<method>` in snake case (`NotesController.findOne` → `notes_find_one`). */
  name?: string;
  /** Defaults to the route's verb and full path (`GET /api/v1/notes/:id`). */
  description?: string;
  /** Over the hints read from the verb (GET read-only; PUT and DELETE idempotent; DELETE destructive). */
  annotations?: ToolAnnotations;
}

/**
 * The `routes` section of the module options: how a route tool's call reaches the route.
 *
 * @publicApi
 */
export interface McpRoutesOptions {
  /**
   * Headers of the MCP request forwarded to the route besides `authorization` (lower-case
   * names), so that the route's guards see the caller's credentials.
   * @default []
   */
  forwardHeaders?: string[];
  /**
   * The largest response body read from a route, in bytes; a larger one fails the call (-32603).
   * @default 1048576
   */
  maxResponseBytes?: number;
}
