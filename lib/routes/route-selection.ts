/**
 * Whether a server's options (`routes.expose`) select a controller route: by its controller, by
 * one of its `@ApiTags()`, or by a glob pattern on its full path. A route the application keeps
 * out of its OpenAPI document (`@ApiExcludeEndpoint()`, `@ApiExcludeController()`) is kept out
 * of the selection too: a broad pattern must not publish what the API's own documentation hides.
 * The decorators (`@McpRoute()`, `@McpRoutes()`) still choose such a route by name.
 */
import type { Type } from '@nestjs/common';
import { matchesPathPattern } from './path-glob';
import type { RouteExposure } from './route-settings';
import { swaggerExcluded, swaggerTags } from './swagger-metadata';

/** One controller route, as the selection sees it. */
export interface SelectableRoute {
  readonly controller: Type;
  readonly method: object;
  /** The full path, global prefix and URI version included. */
  readonly path: string;
}

export function exposedBy(exposure: RouteExposure | undefined, route: SelectableRoute): boolean {
  if (exposure === undefined || swaggerExcluded(route.controller, route.method)) {
    return false;
  }
  if (exposure.controllers.includes(route.controller)) {
    return true;
  }
  if (
    exposure.tags.length > 0 &&
    swaggerTags(route.controller, route.method).some((tag) => exposure.tags.includes(tag))
  ) {
    return true;
  }
  return exposure.paths.some((pattern) => matchesPathPattern(pattern, route.path));
}
