/**
 * The engine's settings, resolved from the module options, and its logger.
 */
import type { McpRevision } from '../messages/revisions';
import type { LoggingLevel } from '../messages/log-levels';
import type { McpCacheScope, Implementation } from '../messages/mcp-types';
import type { McpExtension } from '../extensions/extensions';
import type { ExtensionMethod } from './extension-method';

/** The engine's logger: errors from handlers are logged here, never sent to clients. */
export interface EngineLogger {
  error(message: string, trace?: string): void;
  warn(message: string): void;
  debug(message: string): void;
}

/** How long clients may cache a result, and who may share it (2026-07-28). */
export interface CacheHint {
  ttlMs: number;
  scope: McpCacheScope;
}

/** Search mode (`search/tool-search.ts`), resolved from the `toolSearch` option. */
export interface ToolSearchSettings {
  /** The search tool's name. */
  readonly name: string;
  /** The search tool's description, which the model reads. */
  readonly description: string;
  /** The tools still listed by `tools/list` beside the search tool. */
  readonly listed: ReadonlySet<string>;
  /** The most tools one search answers when the query gives no `limit`. */
  readonly defaultLimit: number;
  /** The largest `limit` a query may ask for. */
  readonly maxLimit: number;
  /** The longest `query`, in characters. */
  readonly maxQueryLength: number;
}

/** The engine's settings, resolved from the module options. */
export interface EngineOptions {
  readonly serverInfo: Implementation;
  readonly instructions?: string;
  /** The revisions advertised and accepted, newest first. */
  readonly revisions: readonly McpRevision[];
  /** Page size of the list methods; 0 returns everything in one page. */
  readonly pageSize: number;
  /** The longest resource URI a client may send (`resources/read`, subscriptions, completion refs), in characters. */
  readonly maxUriLength: number;
  /** Search mode: `tools/list` answers a search tool instead of every tool; `undefined` when off. */
  readonly toolSearch?: ToolSearchSettings;
  readonly cacheHints: CacheHint;
  readonly discoverCacheHints: CacheHint;
  /** Deadline of a handler call in ms; 0 disables it. */
  readonly callTimeoutMs: number;
  /** The log level of a legacy session that never sent `logging/setLevel`. */
  readonly defaultLogLevel: LoggingLevel;
  /** Legacy era: how long a request to the client (elicitation, sampling, roots) waits for its answer; 0 = no limit. */
  readonly clientRequestTimeoutMs: number;
  /** How many questions to the client may wait for their answers in one session, or one task. */
  readonly maxPendingQuestions: number;
  /** Modern era: the key `requestState` is signed with (random per process when absent) and its lifetime. */
  readonly requestState: { readonly secret?: string | Buffer; readonly ttlMs: number };
  /** The application's extensions, checked (`extensionProblem`); the module adds its own (tasks). */
  readonly extensions?: readonly McpExtension[];
  /**
   * The request methods the extensions add, checked (`extensionMethodProblem`): the engine's
   * method table joins them to the built-in ones at construction.
   */
  readonly extensionMethods?: readonly ExtensionMethod[];
  readonly logger: EngineLogger;
}
