import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { MCP_CLUSTER_LINK, MCP_REPLAY_STORE, MCP_RESOLVED_OPTIONS } from '../../mcp.constants';
import type { ClusterLink, ClusterMessage } from '../../cluster/cluster-link.interface';
import type { ResolvedMcpOptions } from '../../mcp-options.factory';
import { ErrorCode, failure, notification, type JsonRpcMessage } from '../../protocol/json-rpc';
import { hasFeature, type Revision } from '../../protocol/revisions';
import { McpSessionService } from '../../sessions/mcp-session.service';
import type { ReplayEvent, ReplayStore, ReplayWindow } from '../../sessions/replay-store.interface';
import { SessionChannels, type SessionChannel } from '../../sessions/session-channels';
import { sendJson, SseStream } from './http-exchange';

/** What a stream carries: the answer to one request, or the session's own messages (GET). */
export type StreamKind = 'request' | 'session';

/** What a stream needs from the streams of its process. */
interface StreamHost {
  /** Keeps an event in the session's replay buffer. */
  record(sessionId: string, event: ReplayEvent): void;
  /** The stream is over: it can no longer be resumed live. */
  forget(stream: ResumableStream): void;
  /** The stream's connection closed (client gone, or the server let it go). */
  lost(stream: ResumableStream): void;
}

/** Stream ids: 16 hex digits, or 24 for a request's stream with several instances (the instance id first). */
const EVENT_ID = /^([0-9a-f]{16}(?:[0-9a-f]{8})?):(0|[1-9][0-9]{0,14})$/;

/** How long a resume waits for the instance running a stream to answer, before it gives up. */
const FOLLOW_ANSWER_MS = 5_000;

/**
 * The SSE event id of an event: `<streamId>:<seq>`. It names the stream, so that a resume
 * finds the stream the client was reading, and the position in it.
 */
export function formatEventId(streamId: string, seq: number): string {
  return `${streamId}:${seq}`;
}

/** Reads an event id of ours; `undefined` for anything else (a client's invention, another server's id). */
export function parseEventId(id: string): { streamId: string; seq: number } | undefined {
  const match = EVENT_ID.exec(id.trim());
  return match === null ? undefined : { streamId: match[1], seq: Number(match[2]) };
}

/** Unique within a session (64 random bits), and unguessable across sessions. */
function newStreamId(): string {
  return randomBytes(8).toString('hex');
}

function isResponse(message: JsonRpcMessage | undefined): boolean {
  return message !== undefined && !('method' in message);
}

/**
 * Where a stream's events are written: an SSE connection, or (with several instances) the
 * connection of a client that resumed the stream on another instance.
 */
export interface EventSink {
  send(message: JsonRpcMessage, id: string): boolean;
  prime(id: string, retryMs: number): boolean;
  end(): void;
  onClose(listener: () => void): void;
}

function write(connection: EventSink, event: ReplayEvent, retryMs: number): boolean {
  const id = formatEventId(event.streamId, event.seq);
  return event.message === undefined ? connection.prime(id, retryMs) : connection.send(event.message, id);
}

/**
 * One resumable SSE stream of a legacy session. It outlives its connections: every event gets
 * the next id of the stream and goes to the session's replay buffer, and to the connection
 * attached at that moment, if any. A GET with `Last-Event-ID` attaches a new connection.
 */
export class ResumableStream implements SessionChannel {
  private connection: EventSink | undefined;
  /** Events sent while a resume reads the buffer; written once it has. */
  private held: ReplayEvent[] | undefined;
  private done = false;

  constructor(
    private readonly host: StreamHost,
    readonly sessionId: string,
    readonly id: string,
    readonly kind: StreamKind,
    private nextSeq: number,
  ) {}

  /** Whether the stream is over: answered, ended, or its session ended. */
  get ended(): boolean {
    return this.done;
  }

  /** Sends a message; returns whether a connection took it (it is buffered either way). */
  send(message: JsonRpcMessage): boolean {
    return this.emit(message, 0);
  }

  /** Sends the priming event: an id before any message, with the reconnection delay. */
  prime(retryMs: number): void {
    this.emit(undefined, retryMs);
  }

  /** Ends the stream: its connection ends, and nothing more is sent or buffered. */
  end(): void {
    if (this.done) {
      return;
    }
    this.done = true;
    this.host.forget(this);
    this.disconnect();
  }

  /** As a session channel: the session ended. */
  close(): void {
    this.end();
  }

  /** Ends the connection but not the stream: later events wait in the buffer for a resume. */
  disconnect(): void {
    const connection = this.connection;
    // Let go first, so that the connection's close is not taken for the client leaving.
    this.connection = undefined;
    connection?.end();
  }

  /** Attaches the connection that carries the stream from now on. */
  connect(connection: EventSink): void {
    this.connection = connection;
    connection.onClose(() => {
      if (this.connection === connection) {
        this.connection = undefined;
        this.host.lost(this);
      }
    });
  }

  /** Starts a resume: the current connection is let go, and new events wait until the buffer is read. */
  hold(): void {
    this.disconnect();
    this.held ??= [];
  }

  /** Gives up a resume that has no connection to finish on; the held events stay in the buffer. */
  release(): void {
    this.held = undefined;
  }

  /**
   * Finishes a resume on `connection`: the buffered events after `afterSeq`, then those sent
   * while the buffer was read, each once.
   */
  resume(connection: EventSink, replayed: readonly ReplayEvent[], afterSeq: number): void {
    let last = afterSeq;
    for (const event of [...replayed, ...(this.held ?? [])]) {
      if (event.seq > last) {
        write(connection, event, 0);
        last = event.seq;
      }
    }
    this.held = undefined;
    if (this.done) {
      connection.end();
      return;
    }
    this.connect(connection);
  }

  private emit(message: JsonRpcMessage | undefined, retryMs: number): boolean {
    if (this.done) {
      return false;
    }
    const seq = this.nextSeq++;
    const event: ReplayEvent = message === undefined ? { streamId: this.id, seq } : { streamId: this.id, seq, message };
    this.host.record(this.sessionId, event);
    if (this.held !== undefined) {
      this.held.push(event);
      return false;
    }
    return this.connection !== undefined && write(this.connection, event, retryMs);
  }
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

  send(message: JsonRpcMessage, id: string): boolean {
    return this.post({ type: 'stream_event', followId: this.followId, id, message });
  }

  prime(id: string, retryMs: number): boolean {
    return this.post({ type: 'stream_event', followId: this.followId, id, retryMs });
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

/** A GET resume waiting on the replay store; the session ending meanwhile fails it. */
interface ResumeTicket {
  ended: boolean;
}

/**
 * Resumability of legacy Streamable HTTP streams (2025-03-26 and later, polling per SEP-1699
 * from 2025-11-25). Every event on a session's streams (the SSE answers of its requests and its
 * GET stream) carries an id `<streamId>:<seq>` and is kept in the session's replay buffer. A GET
 * with `Last-Event-ID` replays what followed that event on its stream, then carries the
 * stream on: a request's stream until its response, the session's stream for as long as it is
 * open. Modern-era streams are not resumable and never come here.
 *
 * Live streams are tracked in this process: a resume reaches a running call only on the
 * instance that runs it; on another, it gets what the buffer holds.
 */
@Injectable()
export class ResumableStreams implements StreamHost, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpResumableStreams');
  /** The streams of this process that may still send, by session and stream id. */
  private readonly live = new Map<string, Map<string, ResumableStream>>();
  private readonly resuming = new Map<string, Set<ResumeTicket>>();
  /** Clients here following streams that run elsewhere, and followers elsewhere of streams here. */
  private readonly followers = new Map<string, Follower>();
  private readonly remoteSinks = new Map<string, RemoteSink>();
  private readonly stops: Array<() => void> = [];

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    @Inject(MCP_REPLAY_STORE) private readonly store: ReplayStore,
    private readonly sessions: McpSessionService,
    private readonly channels: SessionChannels,
    @Inject(MCP_CLUSTER_LINK) private readonly link: ClusterLink,
  ) {}

  onModuleInit(): void {
    this.stops.push(this.sessions.onEnd((sessionId, _reason, here) => this.sessionEnded(sessionId, here)));
    this.stops.push(this.link.onMessage((message) => this.onClusterMessage(message)));
  }

  onModuleDestroy(): void {
    this.stops.splice(0).forEach((stop) => stop());
    this.followers.forEach((follower) => follower.connection.end());
    this.remoteSinks.forEach((sink) => sink.end());
  }

  /**
   * Shutdown: ends the streams held open here for their clients, so that each client reconnects
   * (behind a balancer, to another instance) and resumes with `Last-Event-ID` there: the
   * sessions' GET streams, and the connections following a stream that runs on another
   * instance. The SSE answers of requests still running here go on: each ends with its answer.
   * Returns how many streams were ended.
   */
  endHeldStreams(): number {
    const held = [...this.live.values()].flatMap((streams) =>
      [...streams.values()].filter((stream) => stream.kind === 'session'),
    );
    const followers = [...this.followers.values()];
    held.forEach((stream) => stream.end());
    followers.forEach((follower) => follower.connection.end());
    return held.length + followers.length;
  }

  /**
   * Opens the SSE answer of a request of session `sessionId` on `res`: a resumable stream,
   * primed from 2025-11-25. A response the client already left still gets a stream: its events
   * are kept for a resume.
   */
  openRequestStream(
    sessionId: string,
    revision: Revision | undefined,
    res: ServerResponse,
    headers: Record<string, string>,
  ): ResumableStream {
    // With several instances a request's stream names this instance: a resume elsewhere finds it.
    const id = this.link.shared ? `${this.link.instanceId}${randomBytes(4).toString('hex')}` : newStreamId();
    const stream = this.register(sessionId, id, 'request', 0);
    if (!res.destroyed) {
      // Keep-alive comments keep a long, quiet call from being cut by a proxy, and its session alive.
      stream.connect(this.connection(res, headers, sessionId));
    }
    if (hasFeature(revision, 'ssePolling')) {
      stream.prime(this.options.http.retryMs);
    }
    return stream;
  }

  /**
   * Serves a GET of session `sessionId` (found and owned): without `lastEventId`, opens the
   * session's stream (409 when it has one); with it, resumes the stream that event belongs to.
   */
  async serveGet(
    res: ServerResponse,
    headers: Record<string, string>,
    sessionId: string,
    revision: Revision | undefined,
    lastEventId: string | undefined,
  ): Promise<void> {
    if (lastEventId === undefined || lastEventId.trim() === '') {
      await this.openSessionStream(res, headers, sessionId, revision);
    } else {
      await this.resume(res, headers, sessionId, revision, lastEventId);
    }
  }

  private async openSessionStream(
    res: ServerResponse,
    headers: Record<string, string>,
    sessionId: string,
    revision: Revision | undefined,
  ): Promise<void> {
    if (!(await this.channels.reserve(sessionId, 'get'))) {
      sendJson(res, 409, failure(null, ErrorCode.InvalidRequest, 'Conflict: this session already has a stream open'));
      return;
    }
    if (res.destroyed) {
      this.channels.release(sessionId);
      return;
    }
    const stream = this.register(sessionId, newStreamId(), 'session', 0);
    this.channels.attach(sessionId, stream);
    stream.connect(this.connection(res, headers, sessionId));
    if (hasFeature(revision, 'ssePolling')) {
      stream.prime(this.options.http.retryMs);
    }
  }

  /**
   * Resumes the stream of `lastEventId`: a truncation notice when the buffer no longer holds
   * that event, the buffered events after it, then whatever the stream still sends.
   */
  private async resume(
    res: ServerResponse,
    headers: Record<string, string>,
    sessionId: string,
    revision: Revision | undefined,
    lastEventId: string,
  ): Promise<void> {
    const position = parseEventId(lastEventId);
    const live = position === undefined ? undefined : this.live.get(sessionId)?.get(position.streamId);
    // Held before the buffer is read: nothing the stream sends meanwhile can fall between the two.
    live?.hold();
    const ticket: ResumeTicket = { ended: false };
    let tickets = this.resuming.get(sessionId);
    if (tickets === undefined) {
      tickets = new Set();
      this.resuming.set(sessionId, tickets);
    }
    tickets.add(ticket);
    let window: ReplayWindow;
    try {
      window =
        position === undefined
          ? { events: [], found: false }
          : await this.store.after(sessionId, position.streamId, position.seq);
    } catch (error) {
      live?.release();
      throw error;
    } finally {
      tickets.delete(ticket);
      if (tickets.size === 0 && this.resuming.get(sessionId) === tickets) {
        this.resuming.delete(sessionId);
      }
    }
    if (ticket.ended) {
      sendJson(res, 404, failure(null, ErrorCode.InvalidRequest, 'Session not found'));
      return;
    }
    if (res.destroyed) {
      live?.release();
      return;
    }

    let stream = live;
    let fresh = false;
    const answered = window.events.some((event) => isResponse(event.message));
    // A request's stream running on another instance goes on here, from there.
    const owner = live === undefined && !answered ? this.runningElsewhere(position?.streamId) : undefined;
    if (owner === undefined && stream === undefined && !answered && (await this.channels.reserve(sessionId, 'get'))) {
      // Nothing in this process sends on that stream any more (its GET connection closed, or
      // its call ended without an answer): the connection becomes the session's stream, going
      // on with the same stream when the buffer knows where it stopped.
      const last = window.events.at(-1)?.seq ?? (window.found ? position?.seq : undefined);
      fresh = position === undefined || last === undefined;
      stream =
        position === undefined || last === undefined
          ? this.register(sessionId, newStreamId(), 'session', 0)
          : this.register(sessionId, position.streamId, 'session', last + 1);
      this.channels.attach(sessionId, stream);
      if (res.destroyed) {
        // The client left while the stream was claimed.
        stream.end();
        return;
      }
    }

    const polling = hasFeature(revision, 'ssePolling');
    const { retryMs } = this.options.http;
    const connection = this.connection(res, headers, sessionId);
    const truncated = notification('notifications/replay_truncated', { lastEventId });
    if (polling && !fresh && retryMs > 0) {
      // The client resumes with a cursor of its own: no priming event, only the delay.
      connection.retry(retryMs);
    }
    if (owner !== undefined) {
      if (!window.found) {
        connection.send(truncated);
      }
      this.follow(owner, sessionId, position!, connection);
      return;
    }
    if (stream === undefined) {
      // An answered request, or a stream the session no longer reads (it has another one): what
      // the buffer holds, then the end.
      if (!window.found) {
        connection.send(truncated);
      }
      window.events.forEach((event) => write(connection, event, 0));
      connection.end();
      return;
    }
    if (fresh) {
      stream.connect(connection);
      if (polling) {
        stream.prime(retryMs);
      }
      // Not an event of the stream (no id): it is about this connection, so never replayed.
      connection.send(truncated);
      return;
    }
    if (!window.found) {
      connection.send(truncated);
    }
    stream.resume(connection, window.events, position!.seq);
  }

  /** The instance a request's stream of another instance runs on, named by its id; `undefined` otherwise. */
  private runningElsewhere(streamId: string | undefined): string | undefined {
    if (!this.link.shared || streamId === undefined || streamId.length !== 24) {
      return undefined;
    }
    const owner = streamId.slice(0, 16);
    return owner === this.link.instanceId ? undefined : owner;
  }

  /** Asks `owner` for the stream's events after `position`; they are written on `connection` as they come. */
  private follow(
    owner: string,
    sessionId: string,
    position: { streamId: string; seq: number },
    connection: SseStream,
  ): void {
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

  private onClusterMessage(message: ClusterMessage): void {
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
    const stream = this.live.get(request.sessionId)?.get(request.streamId);
    this.remoteSinks.set(request.followId, sink);
    await this.link.send(request.instanceId, { type: 'stream_ack', followId: request.followId });
    // Held before the buffer is read, as for a resume here.
    stream?.hold();
    let window: ReplayWindow;
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
      window.events.forEach((event) => write(sink, event, 0));
      sink.end();
      return;
    }
    stream.resume(sink, window.events, request.afterSeq);
  }

  /** A held SSE connection: keep-alive comments, which also keep its session from idling out. */
  private connection(res: ServerResponse, headers: Record<string, string>, sessionId: string): SseStream {
    const connection = new SseStream(res, headers);
    connection.keepAliveEvery(this.options.http.keepAliveMs, () => {
      this.sessions.touch(sessionId).catch(() => undefined);
    });
    return connection;
  }

  private register(sessionId: string, id: string, kind: StreamKind, nextSeq: number): ResumableStream {
    const stream = new ResumableStream(this, sessionId, id, kind, nextSeq);
    let streams = this.live.get(sessionId);
    if (streams === undefined) {
      streams = new Map();
      this.live.set(sessionId, streams);
    }
    streams.set(id, stream);
    return stream;
  }

  record(sessionId: string, event: ReplayEvent): void {
    this.store.append(sessionId, event).catch((error: unknown) => {
      this.logger.error(
        `Could not keep an event of session ${sessionId} for replay: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }

  forget(stream: ResumableStream): void {
    const streams = this.live.get(stream.sessionId);
    if (streams?.get(stream.id) === stream) {
      streams.delete(stream.id);
      if (streams.size === 0) {
        this.live.delete(stream.sessionId);
      }
    }
    this.channels.detach(stream.sessionId, stream);
  }

  lost(stream: ResumableStream): void {
    // A request's stream goes on without a connection until its answer; the session's stream
    // has nothing to wait for: it is resumed from the buffer.
    if (stream.kind === 'session') {
      stream.end();
    }
  }

  /**
   * Ends the session's streams, fails the resumes waiting on the store, and drops its buffer
   * when the session ended here (the instance that ended it drops it for all).
   */
  private sessionEnded(sessionId: string, here: boolean): void {
    this.resuming.get(sessionId)?.forEach((ticket) => (ticket.ended = true));
    const streams = this.live.get(sessionId);
    this.live.delete(sessionId);
    streams?.forEach((stream) => stream.end());
    if (!here) {
      return;
    }
    this.store.clear(sessionId).catch((error: unknown) => {
      this.logger.error(
        `Could not drop the replay buffer of session ${sessionId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
}
