/**
 * How the instances of one server talk to each other. With one instance (the memory link) there
 * is no one to talk to; with Redis, every instance has a channel of its own and shares one
 * channel with the others.
 */
import type {
  JSONObject,
  RequestId,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResponse,
} from '../protocol/messages/json-rpc';

/** What one instance tells another. */
export type ClusterMessage =
  /** A message for a legacy session's standalone stream (GET or SSE pair), held by the receiver. */
  | { readonly type: 'session_message'; readonly sessionId: string; readonly message: JSONRPCMessage }
  /** A client's answer to a request the receiver sent (its id names the receiver). */
  | { readonly type: 'client_response'; readonly sessionId: string; readonly response: JSONRPCResponse }
  /** A legacy session ended (deleted, expired, its pair closed, evicted) on the sender. */
  | {
      readonly type: 'session_ended';
      readonly sessionId: string;
      readonly reason: 'deleted' | 'expired' | 'closed' | 'evicted';
    }
  /** `notifications/cancelled` for a request the sender does not run. */
  | { readonly type: 'cancel_request'; readonly scope: string; readonly requestId: RequestId; readonly reason: string }
  /** `tasks/update` answers for a task whose work the sender does not run (checked already). */
  | { readonly type: 'task_input'; readonly taskId: string; readonly responses: JSONObject }
  /**
   * Legacy: a `tasks/result` request waits on `instanceId` for a task whose work runs elsewhere
   * (`open`), or no longer does; the work's questions and notifications are sent there meanwhile.
   */
  | { readonly type: 'task_stream'; readonly taskId: string; readonly instanceId: string; readonly open: boolean }
  /** Legacy: a question or notification of a task's work, for the `tasks/result` waiting on the receiver. */
  | { readonly type: 'task_message'; readonly taskId: string; readonly message: JSONRPCRequest | JSONRPCNotification }
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
      readonly message?: JSONRPCMessage;
      readonly retryMs?: number;
    }
  /** A followed stream ended (answered), or is not running on the sender. */
  | { readonly type: 'stream_end'; readonly followId: string }
  /** The client following a stream went away. */
  | { readonly type: 'stream_unfollow'; readonly followId: string }
  /**
   * Instance `instanceId` stopped (killed, or hung past its heartbeat): delivered by the link
   * itself once its heartbeat no longer finds that instance, never sent by an instance.
   */
  | { readonly type: 'instance_stopped'; readonly instanceId: string };

/** Where a legacy session's standalone stream is held: which instance, and which kind of stream. */
export interface StreamClaim {
  readonly instanceId: string;
  /** `get`: a Streamable HTTP GET stream; `pair`: a 2024-11-05 SSE pair. */
  readonly kind: 'get' | 'pair';
  /**
   * The id of the resumable stream (a GET stream), when the holder named it: a message that
   * cannot reach a holder that stopped is kept for replay on that stream.
   */
  readonly streamId?: string;
}

/** Why this instance lost a stream claim: its session no longer exists, or another instance took it over. */
export type ClaimLoss = 'gone' | 'taken';

/** What watches this instance's stream claims as they are refreshed (see `ClusterLink.watchClaims`). */
export interface ClaimWatcher {
  /** Whether the session still exists; a claim of a session that does not is given up, not refreshed. */
  exists(sessionId: string): Promise<boolean>;
  /** A claim of this instance was given up (`gone`) or taken over by another instance (`taken`). */
  lost(sessionId: string, why: ClaimLoss): void;
}

/**
 * The link between the instances of one server.
 */
export interface ClusterLink {
  /** This instance's id: unique among the instances, random per process. */
  readonly instanceId: string;
  /** Whether other instances may exist (`false` for the memory link). */
  readonly shared: boolean;
  /**
   * Sends a message to one other instance; a message for this instance or an unknown one is
   * dropped. Messages to one instance arrive in the order they were sent (a Redis Cluster keeps
   * it while its masters stay the same). Resolves `false` when no instance received it (the instance stopped, or is
   * reconnecting to Redis); in a Redis Cluster, when none listening on the node that took it
   * did, which proves nothing without `isAlive`.
   */
  send(instanceId: string, message: ClusterMessage): Promise<boolean>;
  /** Sends a message to every other instance. */
  broadcast(message: ClusterMessage): Promise<void>;
  /** Calls `handler` with every message other instances send here; returns how to stop. */
  onMessage(handler: (message: ClusterMessage) => void): () => void;
  /**
   * Claims the standalone stream of session `sessionId` (the resumable stream `streamId`, if
   * named) for this instance. A claim held by an instance that stopped is taken over. Resolves
   * `false` when another live claim holds it (on this instance or another one).
   */
  claimStream(sessionId: string, kind: StreamClaim['kind'], streamId?: string): Promise<boolean>;
  /** Gives up this instance's claim on the session's stream (a claim of another instance stays). */
  releaseStream(sessionId: string): Promise<void>;
  /** Where the session's standalone stream is held, if anywhere. */
  streamHolder(sessionId: string): Promise<StreamClaim | undefined>;
  /**
   * Whether instance `instanceId` runs: this one always; another one while it beats and listens.
   * May answer from what the background heartbeat last read (a second old at most); an
   * instance is never taken for stopped while this one cannot tell (reconnecting to Redis).
   */
  isAlive(instanceId: string): Promise<boolean>;
  /**
   * The resumable streams (GET) that instance `instanceId`, stopped, still holds, for this
   * instance to keep their messages until their clients resume: to one instance only (the
   * first to ask), `[]` to the others.
   */
  streamsOf(instanceId: string): Promise<Array<{ readonly sessionId: string; readonly streamId: string }>>;
  /** Has this instance's claims checked as they are refreshed; returns how to stop. */
  watchClaims(watcher: ClaimWatcher): () => void;
  /**
   * Stops: no message is received any more, the claims are given up (releases under way
   * included, awaited), and other instances take this one for stopped at once.
   */
  close(): Promise<void>;
}
