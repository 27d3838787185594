import { Buffer } from 'node:buffer';
import type { JSONRPCMessage } from '../protocol/messages/json-rpc';

/**
 * One event of a legacy session's SSE stream, as the replay buffer keeps it. On the wire its id
 * is `<streamId>:<seq>`.
 *
 * @publicApi
 */
export interface McpReplayEvent {
  /** The stream the event was sent on; unique within the session. */
  readonly streamId: string;
  /** The event's position in its stream, from 0. */
  readonly seq: number;
  /** The message; absent for a priming event (an id with empty data). */
  readonly message?: JSONRPCMessage;
}

/**
 * What a replay buffer still holds of one stream after a position.
 *
 * @publicApi
 */
export interface McpReplayWindow {
  /** The stream's buffered events after the position, oldest first. */
  readonly events: McpReplayEvent[];
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
export interface McpReplayStore {
  /**
   * Appends an event to the session's buffer, dropping the session's oldest events beyond its
   * bounds. The built-in stores bound a buffer by events (`http.replayBufferSize`) and by bytes
   * (`http.replayBufferBytes`, and `http.replayTotalBytes` over all sessions); a store of your
   * own sets its own bounds.
   *
   * @param data the event's message as JSON, as its SSE stream writes it (`''` for a priming
   * event), when the caller has it (the module always passes it): a store that measures or
   * stores events as text takes it rather than serializing the message again. Stores written
   * before it was passed may ignore it.
   */
  append(sessionId: string, event: McpReplayEvent, data?: string): Promise<void>;
  /**
   * Appends `message` to stream `streamId` of the session after the stream's last buffered
   * event (at its seq + 1; at 0 when the buffer holds none of the stream), as one step; resolves
   * the seq it got. The module keeps this way a message for a session's stream whose instance
   * stopped, so that the client's resume of that stream finds it. Optional: without it the
   * module reads the stream's last event with `after`, then appends (two steps, so a message
   * appended between the two may share its seq).
   *
   * @param data the message as JSON, as `append` takes it.
   */
  appendNext?(sessionId: string, streamId: string, message: JSONRPCMessage, data: string): Promise<number>;
  /** The session's buffered events of `streamId` after position `seq`. */
  after(sessionId: string, streamId: string, seq: number): Promise<McpReplayWindow>;
  /** Drops the session's buffer (the session ended). */
  clear(sessionId: string): Promise<void>;
}

/**
 * Appends `message` to stream `streamId` after its last buffered event (`McpReplayStore.appendNext`,
 * or `after` then `append` for a store without it); resolves the seq it got.
 */
export async function appendToStream(
  store: McpReplayStore,
  sessionId: string,
  streamId: string,
  message: JSONRPCMessage,
): Promise<number> {
  const data = JSON.stringify(message);
  if (store.appendNext !== undefined) {
    return store.appendNext(sessionId, streamId, message, data);
  }
  const seq = nextSeq((await store.after(sessionId, streamId, -1)).events, streamId);
  await store.append(sessionId, { streamId, seq, message }, data);
  return seq;
}

/** The seq after the last of stream `streamId` among `buffered` (0 when none is). */
export function nextSeq(buffered: Iterable<McpReplayEvent>, streamId: string): number {
  let next = 0;
  for (const event of buffered) {
    if (event.streamId === streamId && event.seq >= next) {
      next = event.seq + 1;
    }
  }
  return next;
}

/**
 * The window of one stream after position `seq` in a session's buffered events (oldest first):
 * the rule every replay store answers `after` with.
 */
export function replayWindow(buffered: Iterable<McpReplayEvent>, streamId: string, seq: number): McpReplayWindow {
  const events: McpReplayEvent[] = [];
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

/**
 * The byte bounds of the built-in replay stores: an event counts the UTF-8 bytes of its
 * message's JSON (a priming event none).
 */
export interface ReplayByteBounds {
  /** What one session's buffer holds at most (`http.replayBufferBytes`). */
  readonly sessionBytes: number;
  /** What the buffers of all sessions of the server hold at most (`http.replayTotalBytes`). */
  readonly totalBytes: number;
}

/** Checks the bounds a built-in store is made with. */
export function checkReplayBounds(capacity: number, bytes: ReplayByteBounds): void {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new RangeError(`A replay buffer holds at least one event (got ${capacity})`);
  }
  const { sessionBytes, totalBytes } = bytes;
  if (!Number.isInteger(sessionBytes) || sessionBytes < 1) {
    throw new RangeError(`A replay buffer holds at least one byte (got ${sessionBytes})`);
  }
  if (!Number.isInteger(totalBytes) || totalBytes < sessionBytes) {
    throw new RangeError(
      `The replay buffers' total must hold one session's buffer (got ${totalBytes} < ${sessionBytes})`,
    );
  }
}

/** The size of an event against the byte bounds: the UTF-8 length of its message's JSON. */
export function replayEventBytes(event: McpReplayEvent, data: string | undefined): number {
  if (data !== undefined) {
    return Buffer.byteLength(data);
  }
  return event.message === undefined ? 0 : Buffer.byteLength(JSON.stringify(event.message));
}
