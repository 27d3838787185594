/**
 * A request method an extension adds (SEP-2133): what the engine is told of it at construction.
 * The method table (`methods.ts`, `extension-methods.ts`) makes an entry of it, served, era-gated
 * and header-checked like the built-in methods.
 */
import type { JSONObject } from '../messages/json-rpc';
import type { McpEra } from '../messages/revisions';
import type { McpNativeExchange } from '../messages/native-exchange';
import type { McpCallContext } from './call-context.interface';

/**
 * Serves one call of an extension method: `params` are the request's params without `_meta`
 * (read it from `call.meta`). Its value, or a promise of it, is the result: a JSON object.
 */
export type ExtensionMethodHandler = (
  params: JSONObject,
  call: McpCallContext,
  native: McpNativeExchange | undefined,
) => unknown;

/** One method of one extension, as the engine takes it. */
export interface ExtensionMethod {
  /** The JSON-RPC method name, such as `notes-audit/entries`. */
  readonly method: string;
  /** The extension that adds it (its identifier): declared to the engine in `extensions`. */
  readonly extension: string;
  /** The eras that serve it; those of its extension when absent. */
  readonly eras?: readonly McpEra[];
  /**
   * The param the `Mcp-Name` header mirrors in the modern era (like `name` for `tools/call`):
   * a string the request must carry, which the header must then agree with.
   */
  readonly nameParam?: string;
  /** Modern era: a complete result carries `ttlMs` and `cacheScope` (the server's `cacheHints`) unless it sets them. */
  readonly cacheable?: boolean;
  /** Refuse a client that did not declare the extension with -32021 before the handler runs. */
  readonly requiresClientSupport?: boolean;
  /** Scopes the principal must all hold, or the call is refused as a tool's is. */
  readonly scopes?: readonly string[];
  readonly handler: ExtensionMethodHandler;
}
