import { Reflector } from '@nestjs/core';
import { MCP_ROUTE_METADATA, MCP_ROUTES_METADATA } from '../shared/mcp.constants';
import type { McpRouteOptions } from '../interfaces/mcp-route-options.interface';

/** The metadata of `@McpRoute()`, typed for `Reflector.get`. @internal */
export const McpRouteMetadata = Reflector.createDecorator<McpRouteOptions>({ key: MCP_ROUTE_METADATA });

/** The metadata of `@McpRoutes()`, typed for `Reflector.get`. @internal */
export const McpRoutesMetadata = Reflector.createDecorator<McpRouteOptions>({ key: MCP_ROUTES_METADATA });

/**
 * Shows an existing HTTP route (a controller method with `@Get`, `@Post`, `@Put`, `@Patch` or
 * `@Delete`) as an MCP tool. A call sends an HTTP request to the route in-process, so its
 * middleware, guards, interceptors, pipes and filters run as for any HTTP client; the MCP
 * request's `authorization` header (and `routes.forwardHeaders`) go with it.
 *
 * @example
 * ```ts
 * @Get(':id')
 * @McpRoute({ description: 'One note by id' })
 * findOne(@Param('id', ParseIntPipe) id: number) { ... }
 * ```
 * @publicApi
 */
export const McpRoute = (options: McpRouteOptions = {}): MethodDecorator => McpRouteMetadata(options);

/**
 * Shows every HTTP route of a controller as an MCP tool (see `@McpRoute`); `name` is not taken
 * here, and a method's own `@McpRoute()` options come over the controller's.
 *
 * @publicApi
 */
export const McpRoutes = (options: Omit<McpRouteOptions, 'name'> = {}): ClassDecorator => McpRoutesMetadata(options);
