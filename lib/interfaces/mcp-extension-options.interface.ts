/**
 * What describes a vendor extension a provider implements (`@McpExtensionProvider`), the request
 * methods it adds (`@McpExtensionMethod`), and the hook through which it adds `_meta` to the
 * server's list entries.
 */
import type { JSONObject } from '../protocol/messages/json-rpc';
import type { McpEra } from '../protocol/messages/revisions';
import type { McpExtension } from '../protocol/extensions/extensions';
import type {
  McpPromptDefinition,
  McpResourceDefinition,
  McpResourceTemplateDefinition,
  McpToolDefinition,
} from './mcp-definitions.interface';

/**
 * The extension a provider implements: its identifier, its settings and its eras, advertised in
 * `capabilities.extensions` of `initialize` and `server/discover` as if declared in
 * `McpModule.forRoot({ extensions })`.
 *
 * @publicApi
 */
export type McpExtensionProviderOptions = McpExtension;

/**
 * How one method of an extension is served.
 *
 * @publicApi
 */
export interface McpExtensionMethodOptions {
  /** The eras that serve it; those of its extension when absent. A request of another era gets -32601. */
  eras?: McpEra[];
  /**
   * The param the `Mcp-Name` header mirrors in the 2026-07-28 era, as `name` is for `tools/call`:
   * requests must carry it as a string, and the header must agree with it (-32020 otherwise).
   */
  nameParam?: string;
  /**
   * Whether a complete result may be cached by the client: in the 2026-07-28 era it carries
   * `ttlMs` and `cacheScope` (the server's `cacheHints`) unless the handler sets them. Off
   * when absent.
   */
  cacheable?: boolean;
  /**
   * Refuse a client that did not declare the extension in its capabilities with -32021 (its
   * `data.requiredCapabilities.extensions` names the extension) before the handler runs. A
   * handler can decide for itself with `ctx.clientSupports(id)` or `ctx.requireExtension(id)`.
   * Off when absent.
   */
  requiresClientSupport?: boolean;
}

/**
 * A list entry as the `entryMeta` hook sees it: its kind and its definition (the decorator's
 * options with the name settled, or what was given to `McpRegistry`).
 *
 * @publicApi
 */
export type McpEntryOf =
  | { readonly kind: 'tool'; readonly definition: McpToolDefinition }
  | { readonly kind: 'resource'; readonly definition: McpResourceDefinition }
  | { readonly kind: 'resource template'; readonly definition: McpResourceTemplateDefinition }
  | { readonly kind: 'prompt'; readonly definition: McpPromptDefinition };

/**
 * What an extension provider may implement besides its methods.
 *
 * @publicApi
 */
export interface McpExtensionHooks {
  /**
   * The `_meta` the extension adds to one entry of the server's lists (`tools/list`,
   * `resources/list`, `resources/templates/list`, `prompts/list`), or `undefined` for none.
   * Called once, when the entry is registered (so lists stay cacheable); its keys must be the
   * extension's own: its identifier, or `{id}/...` (any other stops the registration with an
   * `McpConfigurationError`). Keys the entry sets in its own `_meta` win.
   */
  entryMeta?(entry: McpEntryOf): JSONObject | undefined;
}
