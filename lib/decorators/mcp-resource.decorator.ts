import { SetMetadata } from '@nestjs/common';
import { MCP_RESOURCE_METADATA, MCP_RESOURCE_TEMPLATE_METADATA } from '../mcp.constants';
import type { McpResourceOptions, McpResourceTemplateOptions } from '../interfaces/mcp-definitions.interface';

/**
 * Makes a method the reader of an MCP resource with a fixed URI. Without parameter decorators
 * the method receives `({ uri }, ctx)`. It may return a string (text), bytes (blob), `{ text }`
 * or `{ blob }` contents, or a full `ReadResourceResult`.
 *
 * @example
 * ```ts
 * @McpResource({ uri: 'notes://index', mimeType: 'application/json' })
 * index() { return this.notes.list(); }
 * ```
 * @publicApi
 */
export const McpResource = (options: McpResourceOptions): MethodDecorator =>
  SetMetadata(MCP_RESOURCE_METADATA, options);

/**
 * Makes a method the reader of the resources an RFC 6570 URI template describes. Without
 * parameter decorators the method receives `(variables, ctx)`; `ctx.name` is the URI read.
 *
 * @example
 * ```ts
 * @McpResourceTemplate({ uriTemplate: 'notes://{id}', complete: { id: (v) => ids(v) } })
 * note(@ToolArgs('id') id: string) { ... }
 * ```
 * @publicApi
 */
export const McpResourceTemplate = (options: McpResourceTemplateOptions): MethodDecorator =>
  SetMetadata(MCP_RESOURCE_TEMPLATE_METADATA, options);
