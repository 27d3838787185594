import type { Type } from '@nestjs/common';
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
  /**
   * Ask the person before the route runs (elicitation): `true`, or the question to ask. The
   * route, its path and its arguments are shown with it; only an accepted "yes" runs the route,
   * and a client that cannot ask (no elicitation) gets an `isError` result. `false` turns off
   * `routes.confirmDestructive` for this route.
   */
  confirm?: boolean | string;
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
  /**
   * The largest file (a body neither JSON nor `text/*`: a `StreamableFile`, an image, a PDF)
   * embedded in a result, in bytes. A larger one, of a GET route called over HTTP, becomes a
   * `resource_link` to the route's URL, and its body is not read; of any other route, it fails
   * the call (-32603). Never more than `maxResponseBytes` is read.
   * @default 262144
   */
  maxInlineBytes?: number;
  /**
   * Ask the person (elicitation) before every route whose annotations say `destructiveHint`
   * (DELETE, unless overridden) runs, as `@McpRoute({ confirm: true })` does.
   * @default false
   */
  confirmDestructive?: boolean;
  /**
   * Routes this server shows as tools besides those chosen with `@McpRoute()` / `@McpRoutes()`:
   * a controller route is shown when any of the three lists selects it. Only the routes of the
   * modules the server takes handlers from are selected (its `include`, else those no other
   * server's `include` names); a route's own `@McpRoute()` options still apply to it. A route
   * left out of the OpenAPI document (`@ApiExcludeEndpoint()`, `@ApiExcludeController()`) is
   * never selected here.
   * @example
   * ```ts
   * routes: { expose: { tags: ['notes'], paths: ['/api/v1/reports/**'] } }
   * ```
   * @see {@link McpRoutesExposeOptions}
   */
  expose?: McpRoutesExposeOptions;
}

/**
 * Which controller routes a server shows as tools, by its options (`routes.expose`): a route is
 * shown when its controller is listed, or one of its tags is, or its path matches a pattern.
 *
 * @publicApi
 */
export interface McpRoutesExposeOptions {
  /**
   * Controller classes: every `@Get`, `@Post`, `@Put`, `@Patch` and `@Delete` route of each. A
   * controller the application does not have, or whose module the server does not take, stops
   * the application.
   * @default []
   */
  controllers?: Type[];
  /**
   * `@nestjs/swagger` tags (`@ApiTags()` on the controller or the method): the routes that carry
   * any of them.
   * @default []
   */
  tags?: string[];
  /**
   * Glob patterns on a route's full path, global prefix and URI version included (`/api/v1/notes/:id`):
   * a `*` segment matches one segment, a `**` segment any number of them (none included); a `*`
   * inside a segment is refused at startup.
   * @default []
   * @example
   * ```ts
   * paths: ['/api/v1/notes/**', '/api/v1/reports']
   * ```
   */
  paths?: string[];
}
