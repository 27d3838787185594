import { applyDecorators } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MCP_RESOURCE_METADATA, MCP_RESOURCE_TEMPLATE_METADATA } from '../shared/mcp.constants';
import type { McpResourceOptions, McpResourceTemplateOptions } from '../interfaces/mcp-definitions.interface';
import { McpDefaultParams } from './mcp-params.decorator';

/** The metadata of `@McpResource()`, typed for `Reflector.get`. @internal */
export const McpResourceMetadata = Reflector.createDecorator<McpResourceOptions>({ key: MCP_RESOURCE_METADATA });

/** The metadata of `@McpResourceTemplate()`, typed for `Reflector.get`. @internal */
export const McpResourceTemplateMetadata = Reflector.createDecorator<McpResourceTemplateOptions>({
  key: MCP_RESOURCE_TEMPLATE_METADATA,
});

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
  applyDecorators(McpResourceMetadata(options), McpDefaultParams());

/**
 * Makes a method the reader of the resources an RFC 6570 URI template describes. Without
 * parameter decorators the method receives `(variables, ctx)`; `ctx.name` is the URI read.
 *
 * @example
 * ```ts
 * @McpResourceTemplate({ uriTemplate: 'notes://{id}', complete: { id: (v) => ids(v) } })
 * note(@McpArgs('id') id: string) { ... }
 * ```
 * @publicApi
 */
export const McpResourceTemplate = (options: McpResourceTemplateOptions): MethodDecorator =>
  applyDecorators(McpResourceTemplateMetadata(options), McpDefaultParams());
