/**
 * How the instances of one server talk to each other. With one instance (the memory link) there
 * is no one to talk to; with Redis, every instance has a channel of its own and shares one
 * channel with the others.
 */
import type {
  JsonObject,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from '../protocol/json-rpc';

/** What one instance tells another. */
export type ClusterMessage =
  /** A message for a legacy session's standalone stream (GET or SSE pair), held by the receiver. */
  | { readonly type: 'session_message'; readonly sessionId: string; readonly message: JsonRpcMessage }
  /** A client's answer to a request the receiver sent (its id names the receiver). */
  | { readonly type: 'client_response'; readonly sessionId: string; readonly response: JsonRpcResponse }
  /** A legacy session ended (deleted, expired, its pair closed, evicted) on the sender. */
  | {
      readonly type: 'session_ended';
      readonly sessionId: string;
      readonly reason: 'deleted' | 'expired' | 'closed' | 'evicted';
    }
  /** `notifications/cancelled` for a request the sender does not run. */
  | { readonly type: 'cancel_request'; readonly scope: string; readonly requestId: JsonRpcId; readonly reason: string }
  /** `tasks/update` answers for a task whose work the sender does not run (checked already). */
  | { readonly type: 'task_input'; readonly taskId: string; readonly responses: JsonObject }
  /**
   * Legacy: a `tasks/result` request waits on `instanceId` for a task whose work runs elsewhere
   * (`open`), or no longer does; the work's questions and notifications are sent there meanwhile.
   */
  | { readonly type: 'task_stream'; readonly taskId: string; readonly instanceId: string; readonly open: boolean }
  /** Legacy: a question or notification of a task's work, for the `tasks/result` waiting on the receiver. */
  | { readonly type: 'task_message'; readonly taskId: string; readonly message: JsonRpcRequest | JsonRpcNotification }
  /**
   * A client resumes (`Last-Event-ID`) on `instanceId` a request's stream that runs on the
   * receiver: the receiver sends the stream's events after `afterSeq`, then the live ones.
   */
  | {
      readonly type: 'stream_follow';
      readonly followId: string;
      readonly instanceId: string;
      readonly sessionId: string;
      readonly streamId: string;
      readonly afterSeq: number;
    }
  /** The stream to follow is found; its events come next. */
  | { readonly type: 'stream_ack'; readonly followId: string }
  /** One event of a followed stream (`message` absent: a priming event with `retryMs`). */
  | {
      readonly type: 'stream_event';
      readonly followId: string;
      readonly id: string;
      readonly message?: JsonRpcMessage;
      readonly retryMs?: number;
    }
  /** A followed stream ended (answered), or is not running on the sender. */
  | { readonly type: 'stream_end'; readonly followId: string }
  /** The client following a stream went away. */
  | { readonly type: 'stream_unfollow'; readonly followId: string };

/** Where a legacy session's standalone stream is held: which instance, and which kind of stream. */
export interface StreamClaim {
  readonly instanceId: string;
  /** `get`: a Streamable HTTP GET stream; `pair`: a 2024-11-05 SSE pair. */
  readonly kind: 'get' | 'pair';
}

/**
 * The link between the instances of one server.
 */
export interface ClusterLink {
  /** This instance's id: unique among the instances, random per process. */
  readonly instanceId: string;
  /** Whether other instances may exist (`false` for the memory link). */
  readonly shared: boolean;
  /** Sends a message to one other instance; a message for this instance or an unknown one is dropped. */
  send(instanceId: string, message: ClusterMessage): Promise<void>;
  /** Sends a message to every other instance. */
  broadcast(message: ClusterMessage): Promise<void>;
  /** Calls `handler` with every message other instances send here; returns how to stop. */
  onMessage(handler: (message: ClusterMessage) => void): () => void;
  /**
   * Claims the standalone stream of session `sessionId` for this instance. Resolves `false` when
   * another live claim holds it (on this instance or another one).
   */
  claimStream(sessionId: string, kind: StreamClaim['kind']): Promise<boolean>;
  /** Gives up this instance's claim on the session's stream (a claim of another instance stays). */
  releaseStream(sessionId: string): Promise<void>;
  /** Where the session's standalone stream is held, if anywhere. */
  streamHolder(sessionId: string): Promise<StreamClaim | undefined>;
  /** Stops: claims are given up, no message is received any more. */
  close(): Promise<void>;
}
