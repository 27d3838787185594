import { Reflector } from '@nestjs/core';
import { MCP_SCOPES_METADATA, MCP_VISIBILITY_GUARD_METADATA } from '../shared/mcp.constants';

/** The metadata of `@McpScopes()`, typed for `Reflector.get`. @internal */
export const McpScopesMetadata = Reflector.createDecorator<string[]>({ key: MCP_SCOPES_METADATA });

/** The metadata of `@McpVisibilityGuard()`, typed for `Reflector.get`. @internal */
export const McpVisibilityGuardMetadata = Reflector.createDecorator<boolean>({ key: MCP_VISIBILITY_GUARD_METADATA });

/**
 * The scopes a caller must all hold to call a tool, read a resource or template, or get a prompt
 * (and to see it listed). On a class, every MCP handler of the class requires them, on top of its
 * own.
 *
 * A call without them is refused before the handler runs: over HTTP with 403 and
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."` (bearer tokens can be
 * stepped up), elsewhere with the JSON-RPC error -32003 (`McpErrorCode.InsufficientScope`).
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Delete a note' })
 * @McpScopes('notes:write')
 * remove(@McpArgs('id') id: string) { ... }
 * ```
 * @publicApi
 */
export const McpScopes = (...scopes: string[]): MethodDecorator & ClassDecorator => McpScopesMetadata(scopes);

/**
 * Marks a guard as deciding visibility: besides guarding calls, it runs for `tools/list`,
 * `prompts/list`, `resources/list` and `resources/templates/list` on every handler it guards, and
 * a handler it refuses is left out of the list. In a list context the guard sees the list
 * request's `McpCallContext` and no arguments (`McpExecutionContext.isListing()` tells).
 *
 * @example
 * ```ts
 * @Injectable()
 * @McpVisibilityGuard()
 * export class AdminOnly implements CanActivate {
 *   canActivate(context: ExecutionContext) {
 *     return McpExecutionContext.create(context).getContext().principal.claims?.role === 'admin';
 *   }
 * }
 * ```
 * @publicApi
 */
export const McpVisibilityGuard = (): ClassDecorator => McpVisibilityGuardMetadata(true);
