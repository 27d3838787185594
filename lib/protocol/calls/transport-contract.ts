/**
 * What a transport and the engine exchange: the facts a transport gathers about one message,
 * the channel its notifications travel on, the outcome it writes back, and what the engine
 * reaches beyond the protocol (tasks, legacy sessions' streams, the other instances).
 */
import type { McpEra, McpRevision } from '../messages/revisions';
import type {
  RequestId,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResponse,
} from '../messages/json-rpc';
import type { McpPrincipal } from '../bounds/principal';
import type { SessionHandle } from '../messages/session-handle';
import type { McpHeaderBag } from '../messages/request-headers';
import type { CancellationSource } from './call-scope';
import type { SkillCatalog } from '../skills/skill-library';
import type { TaskPort } from '../tasks/task-port';
import type { McpNativeExchange } from '../messages/native-exchange';

/** The MCP transports. */
export type { McpNativeExchange } from '../messages/native-exchange';

/** The transport a call came on: `ctx.transport`. @publicApi */
export type McpTransportKind = 'streamable-http' | 'simple-http' | 'sse' | 'stdio';

/** Where the notifications related to one request go (its SSE stream, stdio...). */
export interface RequestChannel {
  notify(message: JSONRPCNotification): void;
  /**
   * Marks the request long-lived (`subscriptions/listen`): its stream opens now and is kept
   * alive until the request is answered or cancelled. Absent where there is nothing to keep alive.
   */
  hold?(): void;
  /**
   * Legacy era: sends a request to the client on the same stream (elicitation, sampling,
   * roots). Returns `false` when the stream can no longer carry it. Absent where a transport has
   * no way to reach the client during a call.
   */
  request?(message: JSONRPCRequest): boolean | Promise<boolean>;
  /**
   * Legacy era, resumable streams (SEP-1699): ends the connection of the request's SSE stream
   * but not the stream; its later messages wait in the session's replay buffer for the client
   * to resume with `Last-Event-ID`. Absent where streams cannot be resumed.
   */
  closeStream?(): void;
}

/** What a transport knows about one incoming message. */
export interface RequestFacts {
  readonly era: McpEra;
  readonly transport: McpTransportKind;
  readonly principal?: McpPrincipal;
  /** Legacy: the revision resolved from the version header or the session. */
  readonly revision?: McpRevision;
  /** Legacy: the session the message belongs to. */
  readonly session?: SessionHandle;
  /** HTTP only: the request headers, lower-cased, for the modern header checks. */
  readonly headers?: McpHeaderBag;
  /** Tells when the transport loses the request (modern: the client closed the stream); never by default. */
  readonly cancellation?: CancellationSource;
  readonly channel: RequestChannel;
  /** Scope of `notifications/cancelled` (the session or connection id); none means not cancellable. */
  readonly cancelScope?: string;
  /** The transport's own deadline for the request in ms, instead of `callTimeoutMs`; 0 disables it. */
  readonly timeoutMs?: number;
  readonly native?: McpNativeExchange;
}

/** What to answer to one message. */
export type EngineOutcome =
  | {
      readonly type: 'response';
      readonly response: JSONRPCResponse;
      /**
       * The request failed because a shared store cannot serve (`isStoreUnavailable`): an outage
       * to retry after, not the request's fault. An HTTP transport answers it 503 with
       * `Retry-After` where its answer has not begun.
       */
      readonly storeUnavailable?: true;
    }
  /** Nothing to send: a notification, or a request that was cancelled. */
  | { readonly type: 'none' };

/** What the engine reaches beyond the protocol: the tasks, and the legacy sessions' streams. */
export interface EngineHooks {
  /** The tasks; without them no call becomes a task and the `tasks/*` methods are not served. */
  readonly tasks?: TaskPort;
  /**
   * Sends a message on a legacy session's standalone stream, wherever it is held; resolves
   * `false` when the session has none.
   */
  readonly sendToSession?: (sessionId: string, message: JSONRPCMessage) => boolean | Promise<boolean>;
  /** The other instances of the server, when there may be some. */
  readonly cluster?: EngineCluster;
  /** The skills; with them the Skills extension is declared and its methods are served. */
  readonly skills?: SkillCatalog;
}

/**
 * Legacy sessions served by several instances: a client's answer, or its `notifications/cancelled`,
 * may reach an instance that does not run the request it is about.
 */
export interface EngineCluster {
  /**
   * Prefix of the ids of this instance's requests to clients (ids become strings), so that the
   * instance an answer reaches knows where to send it.
   */
  readonly requestIdPrefix: string;
  /** Sends an answer to the instance whose request it answers; `false` when no instance is named by its id. */
  forwardResponse(scope: string, response: JSONRPCResponse): boolean;
  /** Tells the other instances to cancel a request of `scope` that does not run here. */
  forwardCancel(scope: string, requestId: RequestId, reason: string): void;
  /**
   * Legacy: opens a `tasks/result` request's stream to a task whose work runs on another
   * instance, so that its questions reach the client; returns how to close it.
   */
  attachTaskStream(taskId: string, channel: RequestChannel): () => void;
}
