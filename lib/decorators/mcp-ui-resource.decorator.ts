import { applyDecorators } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MCP_UI_RESOURCE_METADATA } from '../shared/mcp.constants';
import type { McpUiResourceOptions } from '../interfaces/mcp-definitions.interface';
import { McpDefaultParams } from './mcp-params.decorator';

/** The metadata of `@McpUiResource()`, typed for `Reflector.get`. @internal */
export const McpUiResourceMetadata = Reflector.createDecorator<McpUiResourceOptions>({ key: MCP_UI_RESOURCE_METADATA });

/**
 * Makes a method the view of MCP Apps at a `ui://` URI: it returns the view's HTML, a string
 * (sent as `text`) or bytes (sent as a base64 `blob`), and runs through the Nest pipeline as a
 * resource does. The resource is served as `text/html;profile=mcp-app` with its `_meta.ui`
 * (`csp`, `permissions`, `domain`, `prefersBorder`), and the server declares the
 * `io.modelcontextprotocol/ui` extension. Tools link to it with `ui: { resourceUri }`.
 *
 * @example
 * ```ts
 * @McpUiResource({ uri: 'ui://notes/note-card', name: 'Note card', prefersBorder: true })
 * noteCard() { return this.html; }
 * ```
 * @publicApi
 */
export const McpUiResource = (options: McpUiResourceOptions): MethodDecorator =>
  applyDecorators(McpUiResourceMetadata(options), McpDefaultParams());
