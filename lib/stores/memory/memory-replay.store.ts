import type { JSONRPCMessage } from '../../protocol/messages/json-rpc';
import {
  checkReplayBounds,
  nextSeq,
  replayEventBytes,
  replayWindow,
  type ReplayByteBounds,
  type McpReplayEvent,
  type McpReplayStore,
  type McpReplayWindow,
} from '../../interfaces/replay-store.interface';

/** One kept event: in its session's buffer, and in the order of all sessions' events. */
interface Kept {
  readonly event: McpReplayEvent;
  readonly bytes: number;
  readonly buffer: SessionBuffer;
  /** The session's next event. */
  later: Kept | undefined;
  /** The neighbours in the order events were appended, over all sessions. */
  older: Kept | undefined;
  newer: Kept | undefined;
}

/** One session's kept events, oldest first. */
interface SessionBuffer {
  readonly sessionId: string;
  first: Kept | undefined;
  last: Kept | undefined;
  count: number;
  bytes: number;
}

/** No byte bound: for a store made with a capacity alone. */
const UNBOUNDED: ReplayByteBounds = { sessionBytes: Number.MAX_SAFE_INTEGER, totalBytes: Number.MAX_SAFE_INTEGER };

/**
 * The default replay store, in this process: the last `capacity` events of each session, at
 * most `sessionBytes` of them, and at most `totalBytes` over all sessions, the oldest of all
 * dropped first. Buffers do not survive a restart and are not shared between instances.
 */
export class MemoryReplayStore implements McpReplayStore {
  private readonly buffers = new Map<string, SessionBuffer>();
  /** The oldest and newest kept events of all sessions. */
  private oldest: Kept | undefined;
  private newest: Kept | undefined;
  private bytes = 0;

  constructor(
    private readonly capacity: number,
    private readonly bounds: ReplayByteBounds = UNBOUNDED,
  ) {
    checkReplayBounds(capacity, bounds);
  }

  async append(sessionId: string, event: McpReplayEvent, data?: string): Promise<void> {
    const bytes = replayEventBytes(event, data);
    let buffer = this.buffers.get(sessionId);
    if (bytes > this.bounds.sessionBytes) {
      // Not kept, and nothing before it either: a resume from before it is told events were lost.
      if (buffer !== undefined) {
        this.drop(buffer);
      }
      return;
    }
    if (buffer === undefined) {
      buffer = { sessionId, first: undefined, last: undefined, count: 0, bytes: 0 };
      this.buffers.set(sessionId, buffer);
    }
    const kept: Kept = { event, bytes, buffer, later: undefined, older: this.newest, newer: undefined };
    if (buffer.last === undefined) {
      buffer.first = kept;
    } else {
      buffer.last.later = kept;
    }
    buffer.last = kept;
    buffer.count += 1;
    buffer.bytes += bytes;
    if (this.newest === undefined) {
      this.oldest = kept;
    } else {
      this.newest.newer = kept;
    }
    this.newest = kept;
    this.bytes += bytes;
    while (buffer.count > this.capacity || buffer.bytes > this.bounds.sessionBytes) {
      this.dropFirst(buffer);
    }
    // A session's events are appended in order: the oldest of all is the first of its session.
    while (this.bytes > this.bounds.totalBytes) {
      this.dropFirst(this.oldest!.buffer);
    }
  }

  async appendNext(sessionId: string, streamId: string, message: JSONRPCMessage, data: string): Promise<number> {
    const buffer = this.buffers.get(sessionId);
    const seq = buffer === undefined ? 0 : nextSeq(eventsOf(buffer), streamId);
    await this.append(sessionId, { streamId, seq, message }, data);
    return seq;
  }

  async after(sessionId: string, streamId: string, seq: number): Promise<McpReplayWindow> {
    const buffer = this.buffers.get(sessionId);
    return buffer === undefined ? { events: [], found: false } : replayWindow(eventsOf(buffer), streamId, seq);
  }

  async clear(sessionId: string): Promise<void> {
    const buffer = this.buffers.get(sessionId);
    if (buffer !== undefined) {
      this.drop(buffer);
    }
  }

  /** How many sessions hold a buffer (for tests and diagnostics). */
  get sessionCount(): number {
    return this.buffers.size;
  }

  /** The bytes kept over all sessions (for tests and diagnostics). */
  get totalBytes(): number {
    return this.bytes;
  }

  private drop(buffer: SessionBuffer): void {
    while (buffer.first !== undefined) {
      this.dropFirst(buffer);
    }
  }

  private dropFirst(buffer: SessionBuffer): void {
    const kept = buffer.first!;
    buffer.first = kept.later;
    buffer.count -= 1;
    buffer.bytes -= kept.bytes;
    if (buffer.first === undefined) {
      buffer.last = undefined;
      this.buffers.delete(buffer.sessionId);
    }
    if (kept.older === undefined) {
      this.oldest = kept.newer;
    } else {
      kept.older.newer = kept.newer;
    }
    if (kept.newer === undefined) {
      this.newest = kept.older;
    } else {
      kept.newer.older = kept.older;
    }
    this.bytes -= kept.bytes;
  }
}

/** A session's kept events, oldest first. */
function* eventsOf(buffer: SessionBuffer): Generator<McpReplayEvent> {
  for (let kept = buffer.first; kept !== undefined; kept = kept.later) {
    yield kept.event;
  }
}
