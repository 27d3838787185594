/**
 * The answer channel of one JSON-RPC request over HTTP: a JSON body, or an SSE stream opened
 * as soon as the request has something to send before its response.
 */
import type { RequestChannel } from '../../protocol/engine';
import type { CancellationSource } from '../../protocol/calls/call-scope';
import type { JSONRPCNotification, JSONRPCRequest, JSONRPCResponse } from '../../protocol/messages/json-rpc';
import {
  isAbandoned,
  NO_HEADERS,
  onAbandoned,
  sendJson,
  SseStream,
  type HttpExchange,
  type UnreadBound,
} from './http-exchange';
import { ResumableStream } from './resumable-streams.service';
import type { HttpReply } from './http-reply';
import { merged } from '../../protocol/messages/object-copies';

/** How the SSE answers of requests are held: made once per transport, read only when a stream opens. */
export interface RequestStreamSettings {
  /** Interval of the keep-alive comments of a held stream; 0 for none. */
  readonly keepAliveMs: number;
  /** What the client of a stream may leave unread (`http.maxUnreadBytes`). */
  readonly unread: UnreadBound;
}

/**
 * The answer to one JSON-RPC request over HTTP: a JSON body, or an SSE stream opened as soon as
 * the request has something to send before its response (progress, log messages). On a legacy
 * session the stream is resumable (`ResumableStreams`): numbered, buffered, and able to go on
 * without its connection.
 */
export class HttpRequestChannel implements RequestChannel, CancellationSource {
  private stream: SseStream | ResumableStream | undefined;
  private finished = false;

  constructor(
    private readonly exchange: HttpExchange,
    private readonly streams: RequestStreamSettings,
    readonly headers: Record<string, string> = NO_HEADERS,
    /** Legacy sessions: opens the answer as a resumable stream of the session. */
    private readonly openResumable?: () => ResumableStream,
  ) {}

  /**
   * Whether messages can still go out. A resumable stream takes them without a connection (the
   * client left, or `closeStream()` let it go): they wait in the replay buffer.
   */
  private get writable(): boolean {
    return !this.finished && (this.stream instanceof ResumableStream || !this.exchange.res.destroyed);
  }

  private open(): SseStream | ResumableStream {
    const resumable = this.openResumable?.();
    if (resumable !== undefined) {
      return resumable;
    }
    const { keepAliveMs, unread } = this.streams;
    const stream = new SseStream(this.exchange.res, this.headers, unread);
    if (keepAliveMs > 0) {
      // A long, quiet call is not cut by a proxy's idle timeout.
      stream.keepAliveEvery(keepAliveMs);
    }
    return stream;
  }

  /** Modern requests: the client closing the response before it is complete cancels them. */
  isCancelled(): boolean {
    return isAbandoned(this.exchange.res);
  }

  onCancel(listener: (reason: unknown) => void): () => void {
    return onAbandoned(this.exchange.res, listener);
  }

  notify(message: JSONRPCNotification): void {
    this.send(message);
  }

  /** Legacy: a request to the client rides the call's stream, like its notifications. */
  request(message: JSONRPCRequest): boolean {
    return this.send(message);
  }

  /** Sends on the call's stream, opening it first; returns whether the stream took the message. */
  private send(message: JSONRPCRequest | JSONRPCNotification): boolean {
    if (!this.writable) {
      return false;
    }
    this.stream ??= this.open();
    this.stream.send(message);
    return true;
  }

  /** A long-lived request (`subscriptions/listen`): its stream opens now and carries keep-alive comments. */
  hold(): void {
    if (this.finished || this.exchange.res.destroyed || this.stream !== undefined) {
      return;
    }
    this.stream = this.open();
  }

  respond(status: number, response: JSONRPCResponse, headers?: Record<string, string>): void {
    this.finished = true;
    if (this.stream !== undefined) {
      this.stream.send(response);
      this.stream.end();
    } else {
      sendJson(
        this.exchange.res,
        status,
        response,
        headers === undefined ? this.headers : merged(this.headers, headers),
      );
    }
  }

  /**
   * Legacy sessions (2025-11-25): ends the connection, not the stream; the client resumes it
   * with `Last-Event-ID`. An answer still pending as JSON becomes a stream first, so that the
   * client holds the priming event's id.
   */
  closeStream(): void {
    if (this.finished || this.openResumable === undefined) {
      return;
    }
    this.stream ??= this.open();
    if (this.stream instanceof ResumableStream) {
      this.stream.disconnect();
    }
  }

  /** Ends the exchange without a JSON-RPC response (a cancelled request). */
  end(): void {
    this.finished = true;
    if (this.stream instanceof ResumableStream) {
      // It outlives its connection, so it ends whether or not the client is still there.
      this.stream.end();
      return;
    }
    if (this.exchange.res.destroyed) {
      return;
    }
    // A request must be answered with JSON or a stream; a stream that ends without a message is
    // how "no response" is said.
    (this.stream ?? new SseStream(this.exchange.res, this.headers, this.streams.unread)).end();
  }
}

/**
 * Writes a status table's reply on the request's channel: its response (JSON, or the end of the
 * stream it opened), or the end of the exchange. A session discarded by a failed handshake is
 * no longer named in the answer.
 */
export function answerOn(channel: HttpRequestChannel, reply: HttpReply, sessionEnded: boolean): void {
  if (sessionEnded && 'mcp-session-id' in channel.headers) {
    delete channel.headers['mcp-session-id'];
  }
  if (reply.type === 'respond') {
    channel.respond(reply.status, reply.response, reply.headers);
  } else {
    channel.end();
  }
}
