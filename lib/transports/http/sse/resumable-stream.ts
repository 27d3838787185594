import type { JSONRPCMessage } from '../../../protocol/messages/json-rpc';
import type { McpReplayEvent } from '../../../interfaces/replay-store.interface';
import type { SessionChannel } from '../../../sessions/session-channels';
import { formatEventId } from './event-ids';

/** What a stream carries: the answer to one request, or the session's own messages (GET). */
export type StreamKind = 'request' | 'session';

/** What a stream needs from the streams of its process. */
export interface StreamHost {
  /** Keeps an event in the session's replay buffer; `data` is its message's JSON (`''` for none). */
  record(sessionId: string, event: McpReplayEvent, data: string): void;
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
  /** Writes a message (`data`: its JSON, when the caller has it); false when the sink is full or closed. */
  send(message: JSONRPCMessage, id: string, data?: string): boolean;
  prime(id: string, retryMs: number): boolean;
  /** Resolves true once the sink takes more writes, false once it is closed. */
  drained(): Promise<boolean>;
  end(): void;
  onClose(listener: () => void): void;
}

/** Writes a buffered event with its id: a priming event (no message) or a message. */
export function writeEvent(connection: EventSink, event: McpReplayEvent, retryMs: number, data?: string): boolean {
  const id = formatEventId(event.streamId, event.seq);
  return event.message === undefined ? connection.prime(id, retryMs) : connection.send(event.message, id, data);
}

/**
 * Writes the events of `events` after position `afterSeq` on `connection`, each once and in
 * order (events pushed onto the array meanwhile too), the next only once the connection took
 * the last (a client that does not read holds one event and a socket buffer, not the whole
 * replay). Resolves with the position of the last event written, or `undefined` once the
 * connection closed.
 */
export async function writeEvents(
  connection: EventSink,
  events: readonly McpReplayEvent[],
  afterSeq: number,
): Promise<number | undefined> {
  let last = afterSeq;
  for (const event of events) {
    if (event.seq > last) {
      last = event.seq;
      if (!writeEvent(connection, event, 0) && !(await connection.drained())) {
        return undefined;
      }
    }
  }
  return last;
}

/**
 * One resumable SSE stream of a legacy session. It outlives its connections: every event gets
 * the next id of the stream and goes to the session's replay buffer, and to the connection
 * attached at that moment, if any. A GET with `Last-Event-ID` attaches a new connection.
 */
export class ResumableStream implements SessionChannel {
  private connection: EventSink | undefined;
  /** Events sent while a resume reads the buffer and replays it; written once it has. */
  private held: McpReplayEvent[] | undefined;
  /** The connection of the resume replaying the buffer, until it carries the stream. */
  private replaying: EventSink | undefined;
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
  send(message: JSONRPCMessage): boolean {
    return this.emit(message, 0);
  }

  /** Sends the priming event: an id before any message, with the reconnection delay. */
  prime(retryMs: number): void {
    this.emit(undefined, retryMs);
  }

  /**
   * Ends the stream: its connection ends, and nothing more is sent or buffered. A replay under
   * way writes the rest of the stream (its answer among it), then ends its connection.
   */
  end(): void {
    if (this.done) {
      return;
    }
    this.done = true;
    this.host.forget(this);
    this.letGo();
  }

  /** As a session channel: the session ended; a replay under way ends too. */
  close(): void {
    this.disconnect();
    this.end();
  }

  /**
   * Ends the connection but not the stream, a replay under way included: later events wait in
   * the buffer for a resume.
   */
  disconnect(): void {
    this.letGo();
    const replaying = this.replaying;
    if (replaying !== undefined) {
      // Its events are in the buffer: the next resume reads them there.
      this.replaying = undefined;
      this.held = undefined;
      replaying.end();
    }
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

  /**
   * Starts a resume: the current connection (or the replay of an earlier resume) is let go, and
   * new events wait until the buffer is read.
   */
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
   * while the buffer was read and while they are written, each once, at the pace the client
   * reads them; then the connection carries the stream.
   */
  resume(connection: EventSink, replayed: readonly McpReplayEvent[], afterSeq: number): void {
    this.replaying = connection;
    this.held ??= [];
    void this.replay(connection, replayed, afterSeq);
  }

  private async replay(connection: EventSink, replayed: readonly McpReplayEvent[], afterSeq: number): Promise<void> {
    let last = await writeEvents(connection, replayed, afterSeq);
    // Events sent meanwhile are held, in order; more may come while they are written, and the
    // walk over the array takes them too. A resume that takes the stream over ends this
    // connection, which stops the walk.
    if (last !== undefined && this.replaying === connection) {
      last = await writeEvents(connection, this.held ?? [], last);
    }
    if (this.replaying !== connection) {
      // Another resume took the stream over (its connection was ended), or the stream was lost.
      return;
    }
    this.replaying = undefined;
    this.held = undefined;
    if (last === undefined) {
      // The client left during the replay: as when a connected client leaves.
      this.host.lost(this);
      return;
    }
    if (this.done) {
      connection.end();
      return;
    }
    this.connect(connection);
  }

  /** Ends the attached connection; let go first, so that its close is not taken for the client leaving. */
  private letGo(): void {
    const connection = this.connection;
    this.connection = undefined;
    connection?.end();
  }

  private emit(message: JSONRPCMessage | undefined, retryMs: number): boolean {
    if (this.done) {
      return false;
    }
    const seq = this.nextSeq++;
    // Serialized once: the buffer measures (or stores) it, the connection writes it.
    const data = message === undefined ? '' : JSON.stringify(message);
    const event: McpReplayEvent =
      message === undefined ? { streamId: this.id, seq } : { streamId: this.id, seq, message };
    this.host.record(this.sessionId, event, data);
    if (this.held !== undefined) {
      this.held.push(event);
      return false;
    }
    return this.connection !== undefined && writeEvent(this.connection, event, retryMs, data);
  }
}
