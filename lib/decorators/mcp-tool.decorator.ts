import { SetMetadata } from '@nestjs/common';
import { MCP_TOOL_METADATA } from '../mcp.constants';
import type { McpToolOptions } from '../interfaces/mcp-definitions.interface';

/**
 * Makes a provider or controller method an MCP tool. The method runs through the Nest pipeline
 * (guards, interceptors, pipes, filters) with the execution context type `'mcp'`.
 *
 * Without parameter decorators the method receives `(args, ctx)`; use `@ToolArgs()` and
 * `@McpCtx()` to place them yourself. For a handler whose argument types TypeScript checks
 * against a zod (Standard Schema) or DTO `input`, use `@McpTypedTool()`.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Reserve stock', input: ReserveDto })
 * reserve(@ToolArgs() args: ReserveDto, @McpCtx() ctx: McpCtx) { ... }
 * ```
 * @publicApi
 */
export const McpTool = (options: McpToolOptions = {}): MethodDecorator => SetMetadata(MCP_TOOL_METADATA, options);
