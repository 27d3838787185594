import { applyDecorators } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MCP_TOOL_METADATA } from '../shared/mcp.constants';
import type { McpToolOptions } from '../interfaces/mcp-definitions.interface';
import { McpDefaultParams } from './mcp-params.decorator';

/** The metadata of `@McpTool()`, typed for `Reflector.get`. @internal */
export const McpToolMetadata = Reflector.createDecorator<McpToolOptions>({ key: MCP_TOOL_METADATA });

/**
 * Makes a provider or controller method an MCP tool. The method runs through the Nest pipeline
 * (guards, interceptors, pipes, filters) with the execution context type `'mcp'`.
 *
 * Without parameter decorators the method receives `(args, ctx)`; use `@McpArgs()` and
 * `@McpCtx()` to place them yourself. For a handler whose argument types TypeScript checks
 * against a zod (Standard Schema) or DTO `input`, use `@McpTypedTool()`.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Reserve stock', input: ReserveDto })
 * reserve(@McpArgs() args: ReserveDto, @McpCtx() ctx: McpCallContext) { ... }
 * ```
 * @publicApi
 */
export const McpTool = (options: McpToolOptions = {}): MethodDecorator =>
  applyDecorators(McpToolMetadata(options), McpDefaultParams());
