import type { JsonRpcMessage } from '../protocol/json-rpc';

/**
 * One event of a legacy session's SSE stream, as the replay buffer keeps it. On the wire its id
 * is `<streamId>:<seq>`.
 *
 * @publicApi
 */
export interface ReplayEvent {
  /** The stream the event was sent on; unique within the session. */
  readonly streamId: string;
  /** The event's position in its stream, from 0. */
  readonly seq: number;
  /** The message; absent for a priming event (an id with empty data). */
  readonly message?: JsonRpcMessage;
}

/**
 * What a replay buffer still holds of one stream after a position.
 *
 * @publicApi
 */
export interface ReplayWindow {
  /** The stream's buffered events after the position, oldest first. */
  readonly events: ReplayEvent[];
  /**
   * Whether the event at the position itself is still buffered. When it is not (it fell out of
   * the buffer, or never was in it), events between it and `events[0]` may be lost.
   */
  readonly found: boolean;
}

/**
 * The replay buffers of legacy sessions: the last events sent on every SSE stream of a session
 * (request answers and the GET stream), so that a client reconnecting with `Last-Event-ID` gets
 * what it missed. Every method is async so that a shared store (Redis) can stand in for the
 * in-memory default without changing the callers.
 *
 * @publicApi
 */
export interface ReplayStore {
  /** Appends an event to the session's buffer, dropping the session's oldest beyond its size. */
  append(sessionId: string, event: ReplayEvent): Promise<void>;
  /** The session's buffered events of `streamId` after position `seq`. */
  after(sessionId: string, streamId: string, seq: number): Promise<ReplayWindow>;
  /** Drops the session's buffer (the session ended). */
  clear(sessionId: string): Promise<void>;
}

/**
 * The window of one stream after position `seq` in a session's buffered events (oldest first):
 * the rule every replay store answers `after` with.
 */
export function replayWindow(buffered: Iterable<ReplayEvent>, streamId: string, seq: number): ReplayWindow {
  const events: ReplayEvent[] = [];
  let found = false;
  for (const event of buffered) {
    if (event.streamId !== streamId) {
      continue;
    }
    if (event.seq > seq) {
      events.push(event);
    } else if (event.seq === seq) {
      found = true;
    }
  }
  return { events, found };
}
