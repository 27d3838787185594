/**
 * The per-call context a tool, resource, prompt or completion handler receives (`@McpCtx()`).
 */
import type { Era, Revision } from './revisions';
import type { JsonObject, JsonRpcId } from './json-rpc';
import type { LogLevel } from './log-levels';
import type { ClientCapabilities, Implementation } from './mcp-types';
import type { HeaderBag } from './request-headers';

/**
 * Who is calling: set by the configured authentication, `anonymous` without one. The principal
 * owns sessions, tasks and request state.
 *
 * @publicApi
 */
export interface McpPrincipal {
  /** A stable identifier of the caller. */
  readonly id: string;
  /** The scopes granted to the caller. */
  readonly scopes: readonly string[];
  /** Claims or metadata from the authentication (token claims, key metadata...). */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** `true` for the principal of unauthenticated calls. */
  readonly anonymous?: boolean;
}

/** The principal of calls made without authentication. */
export const ANONYMOUS_PRINCIPAL: McpPrincipal = Object.freeze({
  id: 'anonymous',
  scopes: Object.freeze([]),
  anonymous: true,
});

/** The MCP transports. */
export type TransportKind = 'streamable-http' | 'simple-http' | 'sse' | 'stdio';

/**
 * The context of one MCP call, handed to handlers through `@McpCtx()`.
 *
 * @publicApi
 */
export interface McpCallContext {
  /** The JSON-RPC id of the request. */
  readonly requestId: JsonRpcId;
  /** The method being served: `tools/call`, `resources/read`, `prompts/get`, `completion/complete`. */
  readonly method: string;
  /** What the call names: the tool or prompt name, or the resource URI. */
  readonly name: string | undefined;
  /** The era of the request. */
  readonly era: Era;
  /** The revision the request speaks; `undefined` only before a legacy handshake. */
  readonly revision: Revision | undefined;
  /** The transport the request arrived on. */
  readonly transport: TransportKind;
  /** Aborted when the client cancels, disconnects (modern era), the session ends or the call times out. */
  readonly signal: AbortSignal;
  /** Who is calling. */
  readonly principal: McpPrincipal;
  /** The capabilities the client declared (at `initialize`, or in this request's `_meta`). */
  readonly clientCapabilities: ClientCapabilities;
  /** The client's self-description, when it sent one. */
  readonly clientInfo: Implementation | undefined;
  /** The legacy session id, when the request belongs to one. */
  readonly sessionId: string | undefined;
  /** The request's `_meta`, as sent. */
  readonly meta: Readonly<JsonObject>;
  /** HTTP transports: the request headers, with lower-cased names. */
  readonly headers: HeaderBag | undefined;
  /**
   * Reports progress. Sent only when the request carried a `progressToken`; values must
   * increase (a value not above the previous one is dropped).
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Sends a log message to the client, if the client asked for logs at this level: through
   * `logging/setLevel` on a legacy session, or the request's `_meta` log level in the modern era.
   */
  log(level: LogLevel, data: unknown, logger?: string): void;
}
