/**
 * Resumes across instances. A request's stream runs on the instance that runs the request; a
 * client that resumes it (`Last-Event-ID`) on another instance is served from there: this
 * instance writes what the shared buffer holds after the client's position, at the pace the
 * client reads it, then follows the stream on its owner, which sends the events after the last
 * one written (those appended meanwhile, then the live ones) over the cluster link.
 */
import { randomBytes } from 'node:crypto';
import type { ClusterLink, ClusterMessage } from '../../cluster/cluster-link.interface';
import type { JSONRPCMessage } from '../../protocol/messages/json-rpc';
import type { McpReplayEvent, McpReplayStore, McpReplayWindow } from '../../interfaces/replay-store.interface';
import type { SseStream } from './http-exchange';
import { streamInstance, type EventPosition } from './sse/event-ids';
import { writeEvent, writeEvents, type EventSink, type ResumableStream } from './sse/resumable-stream';

/** How long a resume waits for the instance running a stream to answer, before it gives up. */
const FOLLOW_ANSWER_MS = 5_000;

/** Where cross-instance resumes report what they cannot tell a client. */
export interface StreamFollowLogger {
  warn(message: string): void;
}

/**
 * The connection of a client that resumed, on another instance, a stream running here: events
 * are sent to that instance, which writes them.
 */
class RemoteSink implements EventSink {
  private readonly listeners: Array<() => void> = [];
  private ended = false;

  constructor(
    private readonly link: ClusterLink,
    private readonly instanceId: string,
    readonly followId: string,
    private readonly onEnd: (sink: RemoteSink) => void,
  ) {}

  send(message: JSONRPCMessage, id: string): boolean {
    return this.post({ type: 'stream_event', followId: this.followId, id, message });
  }

  prime(id: string, retryMs: number): boolean {
    return this.post({ type: 'stream_event', followId: this.followId, id, retryMs });
  }

  /** The link takes every event: the instance of the client writes them at its pace. */
  drained(): Promise<boolean> {
    return Promise.resolve(!this.ended);
  }

  end(): void {
    if (!this.ended) {
      this.post({ type: 'stream_end', followId: this.followId });
      this.ended = true;
      this.onEnd(this);
    }
  }

  onClose(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The client went away on the other instance. */
  closed(): void {
    this.ended = true;
    this.onEnd(this);
    this.listeners.splice(0).forEach((listener) => listener());
  }

  private post(message: ClusterMessage): boolean {
    if (this.ended) {
      return false;
    }
    this.link.send(this.instanceId, message).catch(() => this.closed());
    return true;
  }
}

/** A client here following a stream that runs on another instance. */
interface Follower {
  readonly connection: SseStream;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Both sides of cross-instance resumes: the clients here following streams that run elsewhere,
 * and the followers elsewhere of streams that run here. Its owner feeds it the link's messages.
 */
export class StreamFollows {
  private readonly followers = new Map<string, Follower>();
  private readonly remoteSinks = new Map<string, RemoteSink>();

  constructor(
    private readonly link: ClusterLink,
    private readonly store: McpReplayStore,
    /** The live stream of this process with that id, if any. */
    private readonly findStream: (sessionId: string, streamId: string) => ResumableStream | undefined,
    private readonly logger: StreamFollowLogger,
  ) {}

  /** The instance a request's stream of another instance runs on, named by its id; `undefined` otherwise. */
  runningElsewhere(streamId: string | undefined): string | undefined {
    if (!this.link.shared || streamId === undefined) {
      return undefined;
    }
    const owner = streamInstance(streamId);
    return owner === this.link.instanceId ? undefined : owner;
  }

  /**
   * Writes `replayed` (what this instance read of the stream after `position`) on `connection`
   * at the pace the client reads it, then asks `owner` for the events after the last one
   * written; they are written on `connection` as they come.
   */
  follow(
    owner: string,
    sessionId: string,
    position: EventPosition,
    connection: SseStream,
    replayed: readonly McpReplayEvent[],
  ): void {
    void writeEvents(connection, replayed, position.seq).then((last) => {
      if (last !== undefined && connection.open) {
        this.followFrom(owner, sessionId, { streamId: position.streamId, seq: last }, connection);
      }
    });
  }

  private followFrom(owner: string, sessionId: string, position: EventPosition, connection: SseStream): void {
    const followId = randomBytes(8).toString('hex');
    const follower: Follower = {
      connection,
      // An instance that does not answer is gone, and so is the stream: the client resumes again later.
      timer: setTimeout(() => connection.end(), FOLLOW_ANSWER_MS),
    };
    follower.timer!.unref?.();
    this.followers.set(followId, follower);
    connection.onClose(() => {
      clearTimeout(follower.timer);
      if (this.followers.delete(followId)) {
        this.link.send(owner, { type: 'stream_unfollow', followId }).catch(() => undefined);
      }
    });
    this.link
      .send(owner, {
        type: 'stream_follow',
        followId,
        instanceId: this.link.instanceId,
        sessionId,
        streamId: position.streamId,
        afterSeq: position.seq,
      })
      .catch((error: unknown) => {
        this.logger.warn(`Could not resume stream ${position.streamId} on its instance: ${String(error)}`);
        connection.end();
      });
  }

  /** A message of another instance; those not about following a stream are ignored. */
  onMessage(message: ClusterMessage): void {
    switch (message.type) {
      case 'stream_follow':
        this.serveFollow(message).catch((error: unknown) => {
          this.logger.warn(`Could not serve a resume of stream ${message.streamId}: ${String(error)}`);
        });
        return;
      case 'stream_unfollow':
        this.remoteSinks.get(message.followId)?.closed();
        return;
      default:
        this.onFollowed(message);
    }
  }

  /** Shutdown: ends the connections here that follow streams elsewhere; returns how many. */
  endFollowers(): number {
    const followers = [...this.followers.values()];
    followers.forEach((follower) => follower.connection.end());
    return followers.length;
  }

  /** Ends every follow, both ways. */
  close(): void {
    this.followers.forEach((follower) => follower.connection.end());
    this.remoteSinks.forEach((sink) => sink.end());
  }

  /** What the instance running a followed stream sends: an answer, events, the end. */
  private onFollowed(message: ClusterMessage): void {
    if (message.type !== 'stream_ack' && message.type !== 'stream_event' && message.type !== 'stream_end') {
      return;
    }
    const follower = this.followers.get(message.followId);
    if (follower === undefined) {
      return;
    }
    clearTimeout(follower.timer);
    follower.timer = undefined;
    if (message.type === 'stream_event') {
      if (message.message === undefined) {
        follower.connection.prime(message.id, message.retryMs ?? 0);
      } else {
        follower.connection.send(message.message, message.id);
      }
    } else if (message.type === 'stream_end') {
      this.followers.delete(message.followId);
      follower.connection.end();
    }
  }

  /** Another instance's client resumes a stream of this instance: the buffer after its position, then live events. */
  private async serveFollow(request: ClusterMessage & { type: 'stream_follow' }): Promise<void> {
    const sink = new RemoteSink(this.link, request.instanceId, request.followId, (ended) => {
      if (this.remoteSinks.get(ended.followId) === ended) {
        this.remoteSinks.delete(ended.followId);
      }
    });
    const stream = this.findStream(request.sessionId, request.streamId);
    this.remoteSinks.set(request.followId, sink);
    await this.link.send(request.instanceId, { type: 'stream_ack', followId: request.followId });
    // Held before the buffer is read, as for a resume here.
    stream?.hold();
    let window: McpReplayWindow;
    try {
      window = await this.store.after(request.sessionId, request.streamId, request.afterSeq);
    } catch (error) {
      stream?.release();
      sink.end();
      throw error;
    }
    if (stream === undefined) {
      // It ended since the client's instance read the buffer: this instance's writes to the
      // buffer came before this read, so what it holds now ends with the answer.
      window.events.forEach((event) => writeEvent(sink, event, 0));
      sink.end();
      return;
    }
    stream.resume(sink, window.events, request.afterSeq);
  }
}
