import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { MCP_CLUSTER_LINK, MCP_HTTP_SETTINGS, MCP_OWN_SESSIONS, MCP_REPLAY_STORE } from '../../shared/mcp.constants';
import type { ClusterLink } from '../../cluster/cluster-link.interface';
import type { HttpSettings } from './http-settings';
import { McpErrorCode, failure, notification, type JSONRPCMessage } from '../../protocol/messages/json-rpc';
import { hasFeature, type McpRevision } from '../../protocol/messages/revisions';
import { McpSessionService } from '../../sessions/mcp-session.service';
import type { McpReplayEvent, McpReplayStore, McpReplayWindow } from '../../interfaces/replay-store.interface';
import { SessionChannels } from '../../sessions/session-channels';
import { sendJson, SseStream } from './http-exchange';
import { newInstanceStreamId, newStreamId, parseEventId } from './sse/event-ids';
import { ResumableStream, writeEvents, type StreamHost, type StreamKind } from './sse/resumable-stream';
import { PendingResumes } from './sse/pending-resumes';
import { StreamFollows } from './stream-follow';
import { McpLogger } from '../../telemetry/mcp.logger';
import { SlowReaders } from './slow-readers.service';
import { messageOf } from '../../protocol/messages/mcp-error';
import { isStoreUnavailable, logStoreUnavailable } from '../../protocol/bounds/store-unavailable';
import { RefusalLog } from '../../protocol/bounds/refusal-log';

// The HTTP services take both the registry and the stream type from here.
export { ResumableStream, type EventSink, type StreamKind } from './sse/resumable-stream';

function isResponse(message: JSONRPCMessage | undefined): boolean {
  return message !== undefined && !('method' in message);
}

/**
 * Resumability of legacy Streamable HTTP streams (2025-03-26 and later, polling per SEP-1699
 * from 2025-11-25). Every event on a session's streams (the SSE answers of its requests and its
 * GET stream) carries an id `<streamId>:<seq>` and is kept in the session's replay buffer. A GET
 * with `Last-Event-ID` replays what followed that event on its stream, then carries the
 * stream on: a request's stream until its response, the session's stream for as long as it is
 * open. Modern-era streams are not resumable and never come here.
 *
 * Live streams are tracked in this process: a resume reaches a running call on the instance
 * that runs it, or, with several instances, follows it there (`StreamFollows`).
 */
@Injectable()
export class ResumableStreams implements StreamHost, OnModuleInit, OnModuleDestroy {
  private readonly logger = new McpLogger('McpResumableStreams');
  private readonly outages = new RefusalLog(this.logger);
  /** The streams of this process that may still send, by session and stream id. */
  private readonly live = new Map<string, Map<string, ResumableStream>>();
  private readonly resuming = new PendingResumes();
  private readonly follows: StreamFollows;
  private readonly stops: Array<() => void> = [];

  constructor(
    @Inject(MCP_HTTP_SETTINGS) private readonly http: HttpSettings,
    @Inject(MCP_REPLAY_STORE) private readonly store: McpReplayStore,
    @Inject(MCP_OWN_SESSIONS) private readonly sessions: McpSessionService,
    private readonly channels: SessionChannels,
    @Inject(MCP_CLUSTER_LINK) private readonly link: ClusterLink,
    private readonly slowReaders: SlowReaders,
  ) {
    this.follows = new StreamFollows(
      link,
      store,
      (sessionId, streamId) => this.live.get(sessionId)?.get(streamId),
      this.logger,
    );
  }

  onModuleInit(): void {
    this.stops.push(this.sessions.onEnd((sessionId, _reason, here) => this.sessionEnded(sessionId, here)));
    this.stops.push(this.link.onMessage((message) => this.follows.onMessage(message)));
  }

  onModuleDestroy(): void {
    this.stops.splice(0).forEach((stop) => stop());
    this.follows.close();
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
    held.forEach((stream) => {
      // A replay under way ends too: its client resumes where it got to.
      stream.disconnect();
      stream.end();
    });
    return held.length + this.follows.endFollowers();
  }

  /**
   * Opens the SSE answer of a request of session `sessionId` on `res`: a resumable stream,
   * primed from 2025-11-25. A response the client already left still gets a stream: its events
   * are kept for a resume.
   */
  openRequestStream(
    sessionId: string,
    revision: McpRevision | undefined,
    res: ServerResponse,
    headers: Record<string, string>,
  ): ResumableStream {
    // With several instances a request's stream names this instance: a resume elsewhere finds it.
    const id = this.link.shared ? newInstanceStreamId(this.link.instanceId) : newStreamId();
    const stream = this.register(sessionId, id, 'request', 0);
    if (!res.destroyed) {
      // Keep-alive comments keep a long, quiet call from being cut by a proxy, and its session alive.
      stream.connect(this.connection(res, headers, sessionId));
    }
    if (hasFeature(revision, 'ssePolling')) {
      stream.prime(this.http.retryMs);
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
    revision: McpRevision | undefined,
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
    revision: McpRevision | undefined,
  ): Promise<void> {
    // Named in the claim: a message for it while its instance is gone waits in the buffer.
    const id = newStreamId();
    if (!(await this.channels.reserve(sessionId, 'get', id))) {
      sendJson(
        res,
        409,
        failure(null, McpErrorCode.InvalidRequest, 'Conflict: this session already has a stream open'),
      );
      return;
    }
    if (res.destroyed) {
      this.channels.release(sessionId);
      return;
    }
    const stream = this.register(sessionId, id, 'session', 0);
    this.channels.attach(sessionId, stream);
    stream.connect(this.connection(res, headers, sessionId));
    if (hasFeature(revision, 'ssePolling')) {
      stream.prime(this.http.retryMs);
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
    revision: McpRevision | undefined,
    lastEventId: string,
  ): Promise<void> {
    const position = parseEventId(lastEventId);
    const live = position === undefined ? undefined : this.live.get(sessionId)?.get(position.streamId);
    // Held before the buffer is read: nothing the stream sends meanwhile can fall between the two.
    live?.hold();
    let read: { value: McpReplayWindow; ended: boolean };
    try {
      read =
        position === undefined
          ? { value: { events: [], found: false }, ended: false }
          : await this.resuming.during(sessionId, () => this.store.after(sessionId, position.streamId, position.seq));
    } catch (error) {
      live?.release();
      throw error;
    }
    const window = read.value;
    if (read.ended) {
      sendJson(res, 404, failure(null, McpErrorCode.InvalidRequest, 'Session not found'));
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
    const owner = live === undefined && !answered ? this.follows.runningElsewhere(position?.streamId) : undefined;
    // Nothing in this process sends on that stream any more (its GET connection closed, its
    // call ended without an answer, or its instance stopped): the connection becomes the
    // session's stream, going on with the same stream when the buffer knows where it stopped.
    const last = window.events.at(-1)?.seq ?? (window.found ? position?.seq : undefined);
    const streamId = position === undefined || last === undefined ? newStreamId() : position.streamId;
    if (
      owner === undefined &&
      stream === undefined &&
      !answered &&
      (await this.channels.reserve(sessionId, 'get', streamId))
    ) {
      fresh = position === undefined || last === undefined;
      stream = this.register(sessionId, streamId, 'session', fresh ? 0 : last! + 1);
      this.channels.attach(sessionId, stream);
      if (res.destroyed) {
        // The client left while the stream was claimed.
        stream.end();
        return;
      }
    }

    const polling = hasFeature(revision, 'ssePolling');
    const { retryMs } = this.http;
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
      this.follows.follow(owner, sessionId, position!, connection, window.events);
      return;
    }
    if (stream === undefined) {
      // An answered request, or a stream the session no longer reads (it has another one): what
      // the buffer holds, at the pace the client reads it, then the end.
      if (!window.found) {
        connection.send(truncated);
      }
      void writeEvents(connection, window.events, position?.seq ?? -1).then(() => connection.end());
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

  /** A held SSE connection: keep-alive comments, which also keep its session from idling out. */
  private connection(res: ServerResponse, headers: Record<string, string>, sessionId: string): SseStream {
    const connection = new SseStream(res, headers, this.slowReaders);
    connection.keepAliveEvery(this.http.keepAliveMs, () => {
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

  record(sessionId: string, event: McpReplayEvent, data: string): void {
    this.store.append(sessionId, event, data).catch((error: unknown) => {
      const line = `Could not keep an event of session ${sessionId} for replay`;
      // A store outage fails every event of every stream: one line a minute, not one per event.
      if (isStoreUnavailable(error)) {
        logStoreUnavailable(this.outages, line, error);
      } else {
        this.logger.error(`${line}: ${messageOf(error)}`);
      }
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
    this.resuming.sessionEnded(sessionId);
    const streams = this.live.get(sessionId);
    this.live.delete(sessionId);
    streams?.forEach((stream) => stream.end());
    if (!here) {
      return;
    }
    this.store.clear(sessionId).catch((error: unknown) => {
      this.logger.error(`Could not drop the replay buffer of session ${sessionId}: ${messageOf(error)}`);
    });
  }
}
