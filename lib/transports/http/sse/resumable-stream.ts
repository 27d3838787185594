import type { JsonRpcMessage } from '../../../protocol/json-rpc';
import type { ReplayEvent } from '../../../sessions/replay-store.interface';
import type { SessionChannel } from '../../../sessions/session-channels';
import { formatEventId } from './event-ids';

/** What a stream carries: the answer to one request, or the session's own messages (GET). */
export type StreamKind = 'request' | 'session';

/** What a stream needs from the streams of its process. */
export interface StreamHost {
  /** Keeps an event in the session's replay buffer; `data` is its message's JSON (`''` for none). */
  record(sessionId: string, event: ReplayEvent, data: string): void;
  /** The stream is over: it can no longer be resumed live. */
  forget(stream: ResumableStream): void;
  /** The stream's connection closed (client gone, or the server let it go). */
  lost(stream: ResumableStream): void;
}

/**
 * Where a stream's events are written: an SSE connection, or (with several instances) the
 * connection of a client that resumed the stream on another instance.
 */
export interface EventSink {
  /** Writes a message (`data`: its JSON, when the caller has it). */
  send(message: JsonRpcMessage, id: string, data?: string): boolean;
  prime(id: string, retryMs: number): boolean;
  end(): void;
  onClose(listener: () => void): void;
}

/** Writes a buffered event with its id: a priming event (no message) or a message. */
export function writeEvent(connection: EventSink, event: ReplayEvent, retryMs: number, data?: string): boolean {
  const id = formatEventId(event.streamId, event.seq);
  return event.message === undefined ? connection.prime(id, retryMs) : connection.send(event.message, id, data);
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
        writeEvent(connection, event, 0);
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
    // Serialized once: the buffer measures (or stores) it, the connection writes it.
    const data = message === undefined ? '' : JSON.stringify(message);
    const event: ReplayEvent = message === undefined ? { streamId: this.id, seq } : { streamId: this.id, seq, message };
    this.host.record(this.sessionId, event, data);
    if (this.held !== undefined) {
      this.held.push(event);
      return false;
    }
    return this.connection !== undefined && writeEvent(this.connection, event, retryMs, data);
  }
}
