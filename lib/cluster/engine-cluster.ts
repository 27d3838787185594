/**
 * The engine's side of the cluster link: answers and cancellations of legacy sessions that
 * reach an instance other than the one running the request they are about, and the messages of
 * a legacy task whose `tasks/result` waits on another instance than its work.
 */
import type { McpEngine } from '../protocol/engine';
import type { EngineCluster, RequestChannel } from '../protocol/calls/transport-contract';
import type { JSONRPCNotification, JSONRPCRequest } from '../protocol/messages/json-rpc';
import type { ClusterLink, ClusterMessage } from './cluster-link.interface';

/** Ids of requests to clients: `<instance id>.<n>`; the instance id is 16 hex digits. */
const REQUEST_ID = /^([0-9a-f]{16})\.[0-9]+$/;

type ErrorSink = (what: string, error: unknown) => void;

/**
 * The `tasks/result` streams of this instance waiting for tasks whose work runs elsewhere, and
 * the remote ones attached to the work that runs here.
 */
class TaskStreams {
  /** Local streams, by task id. */
  private readonly waiting = new Map<string, Set<RequestChannel>>();
  /** Remote streams attached to local work, by `<task id> <instance id>`. */
  private readonly remote = new Map<string, { readonly taskId: string; readonly detach: () => void }>();

  constructor(
    private readonly link: ClusterLink,
    private readonly onError: ErrorSink,
  ) {}

  /** A local `tasks/result` stream for a task that does not run here; returns how to close it. */
  attach(taskId: string, channel: RequestChannel): () => void {
    let streams = this.waiting.get(taskId);
    if (streams === undefined) {
      streams = new Set();
      this.waiting.set(taskId, streams);
    }
    streams.add(channel);
    this.tell(taskId, true);
    return () => {
      const current = this.waiting.get(taskId);
      if (current?.delete(channel) && current.size === 0) {
        this.waiting.delete(taskId);
        this.tell(taskId, false);
      }
    };
  }

  receive(engine: McpEngine, message: ClusterMessage & { type: 'task_stream' | 'task_message' }): void {
    if (message.type === 'task_message') {
      this.deliver(message.taskId, message.message);
      return;
    }
    const key = `${message.taskId} ${message.instanceId}`;
    this.remote.get(key)?.detach();
    this.remote.delete(key);
    // Streams of an instance that went away are never closed by it: forget those of ended work.
    for (const [other, attached] of this.remote) {
      if (engine.taskCall(attached.taskId) === undefined) {
        this.remote.delete(other);
      }
    }
    const call = message.open ? engine.taskCall(message.taskId) : undefined;
    if (call === undefined) {
      return;
    }
    const send = (sent: JSONRPCRequest | JSONRPCNotification): void => {
      this.link
        .send(message.instanceId, { type: 'task_message', taskId: message.taskId, message: sent })
        .catch((error: unknown) => this.onError('send a task message', error));
    };
    const detach = call.attach({
      notify: send,
      request: (request) => {
        send(request);
        return true;
      },
    });
    this.remote.set(key, { taskId: message.taskId, detach });
  }

  private deliver(taskId: string, message: JSONRPCRequest | JSONRPCNotification): void {
    for (const stream of this.waiting.get(taskId) ?? []) {
      if ('id' in message) {
        if (stream.request?.(message) === true) {
          return;
        }
      } else {
        stream.notify(message);
        return;
      }
    }
  }

  private tell(taskId: string, open: boolean): void {
    this.link
      .broadcast({ type: 'task_stream', taskId, instanceId: this.link.instanceId, open })
      .catch((error: unknown) => this.onError('announce a task stream', error));
  }
}

/** The engine's cluster hooks and what the link delivers to the engine. */
export interface EngineClusterBinding {
  /** For the engine's constructor; `undefined` with the memory link (nothing to reach). */
  readonly hooks: EngineCluster | undefined;
  /** Starts delivering to `engine` what other instances send it; returns how to stop. */
  listen(engine: McpEngine): () => void;
}

/**
 * What the engine needs to reach the other instances. With the memory link there are none: ids
 * stay plain numbers and nothing is forwarded.
 */
export function bindEngineToCluster(link: ClusterLink, onError: ErrorSink): EngineClusterBinding {
  if (!link.shared) {
    return { hooks: undefined, listen: () => () => undefined };
  }
  const streams = new TaskStreams(link, onError);
  const hooks: EngineCluster = {
    requestIdPrefix: `${link.instanceId}.`,
    forwardResponse(scope, response) {
      const owner = typeof response.id === 'string' ? REQUEST_ID.exec(response.id)?.[1] : undefined;
      if (owner === undefined || owner === link.instanceId) {
        return false;
      }
      link
        .send(owner, { type: 'client_response', sessionId: scope, response })
        .catch((error: unknown) => onError('forward a client answer', error));
      return true;
    },
    forwardCancel(scope, requestId, reason) {
      link
        .broadcast({ type: 'cancel_request', scope, requestId, reason })
        .catch((error: unknown) => onError('forward a cancellation', error));
    },
    attachTaskStream: (taskId, channel) => streams.attach(taskId, channel),
  };
  return {
    hooks,
    listen: (engine) =>
      link.onMessage((message) => {
        switch (message.type) {
          case 'client_response':
            engine.deliverResponse(message.sessionId, message.response, false);
            return;
          case 'cancel_request':
            engine.cancelRequest(message.scope, message.requestId, message.reason, false);
            return;
          case 'task_stream':
          case 'task_message':
            streams.receive(engine, message);
            return;
          default:
            return;
        }
      }),
  };
}
