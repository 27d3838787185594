/**
 * Where the legacy messages of a task go while its work runs: a `tasks/result` request waiting
 * for the task, else the session's stream.
 */
import {
  isJsonObject,
  type RequestId,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
} from './messages/json-rpc';
import type { EngineLogger } from './calls/engine-options';
import type { RequestChannel } from './calls/transport-contract';
import { relatedTaskMeta } from './tasks/task-render';
import { logFailedSend } from './bounds/store-unavailable';

/** What a task's channel needs of the engine. */
export interface TaskChannelHost {
  readonly logger: EngineLogger;
  /** Whether the request `id` to the client of `scope` still waits for its answer. */
  isWaiting(scope: string, id: RequestId): boolean;
  /** Sends a message on a legacy session's standalone stream, wherever it is held. */
  sendToSession(sessionId: string, message: JSONRPCMessage): boolean | Promise<boolean>;
}

/**
 * The legacy messages of one task: the questions and notifications of its work, tagged with the
 * task. They go to a `tasks/result` request waiting for the task (the client reads its stream
 * for them), else to the session's stream; questions that find neither wait for the next
 * `tasks/result`.
 */
export class TaskChannel implements RequestChannel {
  private readonly streams = new Set<RequestChannel>();
  private readonly outbox: JSONRPCRequest[] = [];

  constructor(
    private readonly host: TaskChannelHost,
    private readonly taskId: string,
    private readonly sessionId: string | undefined,
  ) {}

  /** A `tasks/result` request of the task opens its stream to the task's messages; returns how to close it. */
  attach(stream: RequestChannel): () => void {
    this.streams.add(stream);
    for (const message of this.outbox.splice(0)) {
      // A question whose wait ended (timed out, the task was cancelled) is no longer asked.
      const waited = this.sessionId !== undefined && this.host.isWaiting(this.sessionId, message.id);
      if (waited && !this.deliverHere(message)) {
        this.outbox.push(message);
      }
    }
    return () => this.streams.delete(stream);
  }

  notify(message: JSONRPCNotification): void {
    void this.deliver(this.tag(message));
  }

  request(message: JSONRPCRequest): boolean {
    const tagged = this.tag(message);
    void this.deliver(tagged).then((sent) => {
      if (!sent) {
        this.outbox.push(tagged);
      }
    });
    // Taken: it is on its way, or waits for the next `tasks/result`.
    return true;
  }

  /** On a waiting `tasks/result` stream, else on the session's stream wherever it is held. */
  private async deliver(message: JSONRPCRequest | JSONRPCNotification): Promise<boolean> {
    if (this.deliverHere(message)) {
      return true;
    }
    try {
      return this.sessionId !== undefined && (await this.host.sendToSession(this.sessionId, message));
    } catch (error) {
      logFailedSend(this.host.logger, `send a message of task ${this.taskId}`, error);
      return false;
    }
  }

  /** On a `tasks/result` stream of this instance. */
  private deliverHere(message: JSONRPCRequest | JSONRPCNotification): boolean {
    for (const stream of this.streams) {
      const sent = 'id' in message ? stream.request?.(message) === true : (stream.notify(message), true);
      if (sent) {
        return true;
      }
    }
    return false;
  }

  private tag<T extends JSONRPCRequest | JSONRPCNotification>(message: T): T {
    const params = message.params ?? {};
    const meta = isJsonObject(params._meta) ? params._meta : {};
    return { ...message, params: { ...params, _meta: { ...meta, ...relatedTaskMeta(this.taskId) } } };
  }
}
