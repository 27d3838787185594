import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { MCP_REPLAY_STORE, MCP_RESOLVED_OPTIONS } from '../../mcp.constants';
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

const EVENT_ID = /^([0-9a-f]{16}):(0|[1-9][0-9]{0,14})$/;

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

function write(connection: SseStream, event: ReplayEvent, retryMs: number): boolean {
  const id = formatEventId(event.streamId, event.seq);
  return event.message === undefined ? connection.prime(id, retryMs) : connection.send(event.message, id);
}

/**
 * One resumable SSE stream of a legacy session. It outlives its connections: every event gets
 * the next id of the stream and goes to the session's replay buffer, and to the connection
 * attached at that moment, if any. A GET with `Last-Event-ID` attaches a new connection.
 */
export class ResumableStream implements SessionChannel {
  private connection: SseStream | undefined;
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
  connect(connection: SseStream): void {
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
  resume(connection: SseStream, replayed: readonly ReplayEvent[], afterSeq: number): void {
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
  private stopListening: (() => void) | undefined;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    @Inject(MCP_REPLAY_STORE) private readonly store: ReplayStore,
    private readonly sessions: McpSessionService,
    private readonly channels: SessionChannels,
  ) {}

  onModuleInit(): void {
    this.stopListening = this.sessions.onEnd((sessionId) => this.sessionEnded(sessionId));
  }

  onModuleDestroy(): void {
    this.stopListening?.();
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
    const stream = this.register(sessionId, newStreamId(), 'request', 0);
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
      this.openSessionStream(res, headers, sessionId, revision);
    } else {
      await this.resume(res, headers, sessionId, revision, lastEventId);
    }
  }

  private openSessionStream(
    res: ServerResponse,
    headers: Record<string, string>,
    sessionId: string,
    revision: Revision | undefined,
  ): void {
    if (this.channels.has(sessionId)) {
      sendJson(res, 409, failure(null, ErrorCode.InvalidRequest, 'Conflict: this session already has a stream open'));
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
    if (stream === undefined && !answered && !this.channels.has(sessionId)) {
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
    }

    const polling = hasFeature(revision, 'ssePolling');
    const { retryMs } = this.options.http;
    const connection = this.connection(res, headers, sessionId);
    const truncated = notification('notifications/replay_truncated', { lastEventId });
    if (polling && !fresh && retryMs > 0) {
      // The client resumes with a cursor of its own: no priming event, only the delay.
      connection.retry(retryMs);
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

  /** Ends the session's streams, fails the resumes waiting on the store, drops its buffer. */
  private sessionEnded(sessionId: string): void {
    this.resuming.get(sessionId)?.forEach((ticket) => (ticket.ended = true));
    const streams = this.live.get(sessionId);
    this.live.delete(sessionId);
    streams?.forEach((stream) => stream.end());
    this.store.clear(sessionId).catch((error: unknown) => {
      this.logger.error(
        `Could not drop the replay buffer of session ${sessionId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
}
