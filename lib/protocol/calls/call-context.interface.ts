/**
 * The per-call context a tool, resource, prompt or completion handler receives (`@McpCtx()`):
 * its public shape. The engine's implementation is `RequestCallContext` (`call-context.ts`).
 */
import type { McpEra, McpRevision } from '../messages/revisions';
import type { JSONObject, RequestId } from '../messages/json-rpc';
import type { LoggingLevel } from '../messages/log-levels';
import type { ClientCapabilities, Implementation } from '../messages/mcp-types';
import type { McpHeaderBag } from '../messages/request-headers';
import type {
  McpAskOptions,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
} from '../messages/client-requests';
import type { McpPrincipal } from '../bounds/principal';
import type { McpTransportKind } from './transport-contract';

/**
 * The context of one MCP call, handed to handlers through `@McpCtx()`.
 *
 * @publicApi
 */
export interface McpCallContext {
  /** The JSON-RPC id of the request. */
  readonly requestId: RequestId;
  /** The method being served: `tools/call`, `resources/read`, `prompts/get`, `completion/complete`. */
  readonly method: string;
  /** What the call names: the tool or prompt name, or the resource URI. */
  readonly name: string | undefined;
  /** The era of the request. */
  readonly era: McpEra;
  /** The revision the request speaks; `undefined` only before a legacy handshake. */
  readonly revision: McpRevision | undefined;
  /** The transport the request arrived on. */
  readonly transport: McpTransportKind;
  /** Aborted when the client cancels, disconnects (modern era), the session ends or the call times out. */
  readonly signal: AbortSignal;
  /** Who is calling. */
  readonly principal: McpPrincipal;
  /** The capabilities the client declared (at `initialize`, or in this request's `_meta`). */
  readonly clientCapabilities: ClientCapabilities;
  /**
   * Whether the client declared support for extension `id` (`com.example/notes-audit`) in its
   * capabilities: at `initialize` (legacy era) or in this request's `_meta` (modern era).
   */
  clientSupports(id: string): boolean;
  /**
   * Refuses the call unless the client declared support for extension `id`: throws the -32021
   * error whose `data.requiredCapabilities.extensions` names it (HTTP 400 in the modern era).
   *
   * @example
   * ```ts
   * ctx.requireExtension('com.example/notes-audit'); // a client without it gets -32021
   * ```
   * @see https://modelcontextprotocol.io/specification/2026-07-28/basic/index#meta
   */
  requireExtension(id: string): void;
  /** The client's self-description, when it sent one. */
  readonly clientInfo: Implementation | undefined;
  /** The legacy session id, when the request belongs to one. */
  readonly sessionId: string | undefined;
  /**
   * The id of the task the call runs as, once it runs as one (`@McpTool({ taskSupport })`):
   * from the start for a 2025-11-25 task, after the inline window for a 2026-07-28 one.
   */
  readonly taskId: string | undefined;
  /** The request's `_meta`, as sent. */
  readonly meta: Readonly<JSONObject>;
  /** HTTP transports: the request headers, with lower-cased names. */
  readonly headers: McpHeaderBag | undefined;
  /**
   * Reports progress. Sent only when the request carried a `progressToken`; values must
   * increase (a value not above the previous one is dropped).
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Sends a log message to the client, if the client asked for logs at this level: through
   * `logging/setLevel` on a legacy session, or the request's `_meta` log level in the modern era.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * Closes the connection that carries this call's SSE stream, so that the client polls for the
   * rest (SEP-1699): it reconnects after the `retry` interval (`http.retryMs`) with
   * `Last-Event-ID`, and receives the call's later messages and its result from the session's
   * replay buffer. Frees the connection during long work. An answer still pending as JSON
   * becomes an SSE stream first, so that the client holds an event id to resume from.
   *
   * Legacy sessions of revision 2025-11-25 only: it does nothing for older revisions (their
   * clients get no priming event), in the modern era (streams there are not resumable) and on
   * transports without resumable streams.
   *
   * @example
   * ```ts
   * ctx.closeStream(); // the client polls while the report is built
   * return await this.reports.build(args, ctx.signal);
   * ```
   * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
   */
  closeStream(): void;
  /**
   * Asks the user for input through the client: a form (`requestedSchema`) or, from
   * 2025-11-25, a URL to open (`mode: 'url'`). The client must have declared `elicitation`
   * (and `elicitation.url` for URL mode); otherwise the call is refused with -32021 and
   * `data.requiredCapabilities` (HTTP 400 in the modern era).
   *
   * Legacy era: sent as an `elicitation/create` request on the call's stream; resolves with the
   * client's answer, rejects on an error answer, a timeout (`clientRequestTimeoutMs`), the call's
   * end or the session's end.
   *
   * Modern era (multi round-trip): the first time, the request is answered with
   * `resultType: "input_required"` listing the question, and the handler's work is abandoned
   * (its `signal` aborts). The client retries with the answer; the handler runs again from the
   * start and this call resolves at once with the answer. Questions asked together (with
   * `Promise.all`) travel in one round; handlers must ask the same questions in the same order
   * on every round (or name them with `options.key`).
   */
  elicit(params: ElicitRequestParams, options?: McpAskOptions): Promise<ElicitResult>;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`). The client must have
   * declared `sampling` (and `sampling.tools` to pass `tools` or `toolChoice`). Travels like
   * `elicit()`.
   */
  sample(params: CreateMessageRequestParams, options?: McpAskOptions): Promise<CreateMessageResult>;
  /** Asks the client for its roots (`roots/list`); the client must have declared `roots`. Travels like `elicit()`. */
  listRoots(options?: McpAskOptions): Promise<ListRootsResult>;
  /**
   * Data the handler keeps across the rounds of a multi round-trip request (modern era): what it
   * stores here in one round is here again in the next. It travels inside the signed
   * `requestState`, which the client can read but not change: keep secrets out of it, and keep
   * it small. Legacy era: an object for this call only.
   */
  readonly state: JSONObject;
}
