import { applyDecorators } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MCP_EXTENSION_METHOD_METADATA, MCP_EXTENSION_PROVIDER_METADATA } from '../shared/mcp.constants';
import type {
  McpExtensionMethodOptions,
  McpExtensionProviderOptions,
} from '../interfaces/mcp-extension-options.interface';
import { McpDefaultParams } from './mcp-params.decorator';

/** The metadata of `@McpExtensionProvider()`, typed for `Reflector.get`. @internal */
export const McpExtensionProviderMetadata = Reflector.createDecorator<McpExtensionProviderOptions>({
  key: MCP_EXTENSION_PROVIDER_METADATA,
});

/** What `@McpExtensionMethod()` records: the method name and its options. @internal */
export interface McpExtensionMethodMetadataValue extends McpExtensionMethodOptions {
  readonly method: string;
}

/** The metadata of `@McpExtensionMethod()`, typed for `Reflector.get`. @internal */
export const McpExtensionMethodMetadata = Reflector.createDecorator<McpExtensionMethodMetadataValue>({
  key: MCP_EXTENSION_METHOD_METADATA,
});

/**
 * Makes a provider the implementation of a vendor extension (SEP-2133): the extension is
 * advertised in `capabilities.extensions` of `initialize` and `server/discover` (with its
 * settings, in its eras), its `@McpExtensionMethod()` methods are served, and its optional
 * `entryMeta` hook ({@link McpExtensionHooks}) adds `_meta` to list entries. The provider belongs
 * to the servers whose `include` holds its module, as tools do. An identifier declared twice (by
 * two providers, or also in `forRoot({ extensions })`) stops the application at startup.
 *
 * @example
 * ```ts
 * @Injectable()
 * @McpExtensionProvider({ id: 'com.example/notes-audit', settings: { level: 'full' } })
 * export class NotesAuditExtension {
 *   @McpExtensionMethod('notes-audit/entries', { requiresClientSupport: true })
 *   entries(@McpArgs() params: { since?: string }, @McpCtx() ctx: McpCallContext) {
 *     return { entries: [] };
 *   }
 * }
 * ```
 * @publicApi
 */
export const McpExtensionProvider = (options: McpExtensionProviderOptions): ClassDecorator =>
  McpExtensionProviderMetadata(options);

/**
 * Makes a method of an `@McpExtensionProvider()` class a request method of its extension. It
 * runs like a tool: after the server's authentication, through the Nest pipeline (guards,
 * interceptors, pipes, filters; context type `'mcp'`), with `@McpScopes()` honoured. Without
 * parameter decorators it receives `(params, ctx)`; `@McpArgs()` is the request's params without
 * `_meta`. Its value (or promise, or Observable) is the result: a JSON object, to which it may
 * add `_meta` of its own. An HttpException of 400, 404 or 422 answers -32602, of 401 or 403
 * -32004.
 *
 * @param method the JSON-RPC method name: slash-separated segments that start with a letter,
 *   such as `notes-audit/entries`; not a method of the specification, nor another extension's.
 * @publicApi
 */
export const McpExtensionMethod = (method: string, options: McpExtensionMethodOptions = {}): MethodDecorator =>
  applyDecorators(McpExtensionMethodMetadata({ ...options, method }), McpDefaultParams());
