/**
 * The contract between a transport and the inbound dispatcher: what the transport knows about
 * one body (`InboundBinding`), where legacy sessions come from (`LegacySessionPort`), and the
 * closed set of outcomes it maps to its wire (`InboundResult`).
 */
import type { CancellationSource } from './calls/call-scope';
import type { McpPrincipal, McpTransportKind } from './calls/call-context';
import type { EngineOutcome, McpNativeExchange, RequestChannel } from './engine';
import type { ClassifiedMessage, JSONRPCErrorResponse, RequestId, JSONRPCResponse } from './messages/json-rpc';
import type { McpHeaderBag } from './messages/request-headers';
import type { McpEra, McpRevision } from './messages/revisions';
import type { SessionHandle } from './messages/session-handle';

/** Why the dispatcher (or the transport) would not serve a body. */
export type RefusalReason =
  /** A legacy message names no session where the transport needs one (HTTP: `Mcp-Session-Id`). */
  | 'session-required'
  /** The session named is unknown, ended, or another principal's. */
  | 'unknown-session'
  /** `initialize` could not open a session: the server's cap on live sessions is reached. */
  | 'session-limit'
  /** `initialize` could not open a session: the caller's cap on live sessions is reached. */
  | 'session-quota'
  /** The legacy session could not be read or opened: the shared store cannot serve now. */
  | 'store-unavailable'
  /** The version header names a revision the server does not serve in the legacy era. */
  | 'bad-version'
  /** A batch where the revision has none. */
  | 'batch-not-supported'
  /** The transport's own admission refused the work (shutting down); it answered already. */
  | 'not-admitted'
  /** The transport withdrew the message before the engine saw it (stdio: cancelled meanwhile). */
  | 'withdrawn';

/** A legacy message, as the session port sees it: a batch has no id nor method. */
export interface LegacyTarget {
  readonly id: RequestId | null;
  readonly method: string | undefined;
  /** The `MCP-Protocol-Version` header, when the transport has one. */
  readonly versionHeader: string | undefined;
  /** The legacy revisions the server serves, newest first. */
  readonly supported: readonly McpRevision[];
}

/** The session and revision a legacy message is served with, or why it is not. */
export type LegacyResolution =
  | {
      readonly ok: true;
      readonly session?: SessionHandle;
      readonly revision?: McpRevision;
      /** Whether this message opened the session (`initialize`): a failed handshake discards it. */
      readonly opened?: boolean;
    }
  | {
      readonly ok: false;
      readonly reason: Exclude<RefusalReason, 'not-admitted' | 'withdrawn' | 'batch-not-supported'>;
      readonly message: string;
    };

/** Where a transport's legacy sessions are found, opened and ended. */
export interface LegacySessionPort {
  /** The session of a legacy request, notification or batch (opening one where the transport does). */
  resolve(target: LegacyTarget): LegacyResolution | Promise<LegacyResolution>;
  /** The session the client's answers belong to; never opens one. */
  current(): SessionHandle | undefined | Promise<SessionHandle | undefined>;
  /** Ends a session this message opened, after a failed handshake. */
  discard(session: SessionHandle): Promise<void>;
}

/** What a channel factory is asked for: the channel of one message, or of a batch's calls. */
export interface ChannelTarget {
  readonly era: McpEra;
  readonly session: SessionHandle | undefined;
  readonly revision: McpRevision | undefined;
}

/** A message's channel, and what tells the engine the transport lost the request (if anything). */
export interface OpenedChannel<C extends RequestChannel = RequestChannel> {
  readonly channel: C;
  readonly cancellation?: CancellationSource;
}

/** The facts of a transport that do not depend on the message. */
export interface FactsInput {
  readonly transport: McpTransportKind;
  readonly principal?: McpPrincipal;
  /** HTTP: the request headers (modern header checks, `ctx.headers`). */
  readonly headers?: McpHeaderBag;
  /** Whether legacy requests see `headers` too (Streamable HTTP) or only modern ones. */
  readonly headersInLegacy?: boolean;
  readonly native?: McpNativeExchange;
  /** The transport's own deadline of a call, instead of `callTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Tells when the whole exchange is lost (simple HTTP: the client left). */
  readonly cancellation?: CancellationSource;
  /** The cancel scope of messages without a session (stdio: the connection). */
  readonly cancelScope?: string;
}

/** What a transport knows about one inbound body, and the hooks it runs at fixed points. */
export interface InboundBinding<C extends RequestChannel = RequestChannel> extends FactsInput {
  /** The `MCP-Protocol-Version` header, when the transport has one. */
  readonly versionHeader?: string;
  /** The one era a transport serves (the SSE pair: legacy); decided per message otherwise. */
  readonly era?: McpEra;
  /** The revision a batch is planned for when neither the header nor a session names one. */
  readonly batchRevision?: McpRevision;
  readonly sessions: LegacySessionPort;
  /** The channel of one message's answer. */
  channel(target: ChannelTarget): OpenedChannel<C>;
  /** The channel of a batch's calls (legacy), which are answered together; `channel`'s by default. */
  batchChannel?(target: ChannelTarget): RequestChannel;
  /** The transport's own admission (shutdown); `false` when it refused, and answered, the work. */
  admits?(messages: ClassifiedMessage | readonly ClassifiedMessage[]): boolean;
  /**
   * Called once nothing refuses the body any more, just before the engine sees it (the SSE pair
   * answers its POST 202 here); `false` withdraws it.
   */
  beforeHandle?(): boolean | void;
  /** Called synchronously once the engine has the request (it cancels it from then on). */
  onHanded?(cancelScope: string | undefined): void;
}

/** The closed outcome of one inbound body, which each transport maps with its status table. */
export type InboundResult<C extends RequestChannel = RequestChannel> =
  /** Not JSON-RPC, or a bad envelope or batch: the error to send (none is sent for a notification). */
  | {
      readonly kind: 'invalid';
      readonly error: JSONRPCErrorResponse;
      readonly notification: boolean;
      /** A batch's: the session it was sent within. */
      readonly session?: SessionHandle;
    }
  /** Only responses, handed to the questions waiting for them in `session`. */
  | { readonly kind: 'delivered'; readonly session: SessionHandle | undefined }
  /** One notification, given to the engine. */
  | { readonly kind: 'accepted'; readonly era: McpEra; readonly session: SessionHandle | undefined }
  /** One request: the engine's outcome; what it streamed went through `channel`. */
  | {
      readonly kind: 'answered';
      readonly era: McpEra;
      readonly outcome: EngineOutcome;
      readonly channel: C;
      /** The request's session; `undefined` after a failed handshake discarded it. */
      readonly session: SessionHandle | undefined;
    }
  /** A batch: the answers of its requests, in order (none when it held only notifications). */
  | {
      readonly kind: 'batch';
      readonly answers: readonly JSONRPCResponse[];
      readonly session: SessionHandle | undefined;
    }
  /** Refused before the engine: the error to send, unless the transport answered itself. */
  | {
      readonly kind: 'refused';
      readonly reason: RefusalReason;
      readonly error?: JSONRPCErrorResponse;
      readonly session?: SessionHandle;
    };

/** The kinds of `InboundResult`. */
export type InboundKind = InboundResult['kind'];
