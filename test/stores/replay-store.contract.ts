import type { JSONRPCMessage } from '../../lib/protocol/messages/json-rpc';
import {
  appendToStream,
  type ReplayByteBounds,
  type McpReplayEvent,
  type McpReplayStore,
} from '../../lib/interfaces/replay-store.interface';

/** An event carrying a message that names its position. */
export function replayEvent(streamId: string, seq: number): McpReplayEvent {
  return { streamId, seq, message: { jsonrpc: '2.0', method: 'notifications/message', params: { seq } } };
}

/**
 * An event whose message's JSON is `bytes` long in UTF-8, made of `pad` (a one-byte or a
 * two-byte character in UTF-8).
 */
export function sizedEvent(streamId: string, seq: number, bytes: number, pad = 'x'): McpReplayEvent {
  const message = (text: string): JSONRPCMessage => ({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { seq, text },
  });
  const room = bytes - Buffer.byteLength(JSON.stringify(message('')));
  const unit = Buffer.byteLength(pad);
  if (room < 0 || room % unit !== 0) {
    throw new Error(`No event of ${bytes} bytes made of ${JSON.stringify(pad)}`);
  }
  return { streamId, seq, message: message(pad.repeat(room / unit)) };
}

/** The message of `event` as the SSE stream writes it: what the module passes to `append`. */
export function dataOf(event: McpReplayEvent): string {
  return event.message === undefined ? '' : JSON.stringify(event.message);
}

/**
 * The behaviour every {@link McpReplayStore} shares.
 *
 * @param makeStore an empty store whose buffers hold `capacity` events per session and, when
 * `bytes` is given, those byte bounds, made in each test; it throws (or rejects with) a
 * RangeError for a capacity below one or bounds that cannot hold an event.
 */
export function describeReplayStoreContract(
  name: string,
  makeStore: (capacity: number, bytes?: ReplayByteBounds) => McpReplayStore | Promise<McpReplayStore>,
): void {
  const event = replayEvent;

  describe(`${name} (McpReplayStore contract)`, () => {
    it('returns the events of one stream after a position, oldest first, and says the position was found', async () => {
      const store = await makeStore(10);
      await store.append('s1', { streamId: 'a', seq: 0 });
      await store.append('s1', event('a', 1));
      await store.append('s1', event('b', 0));
      await store.append('s1', event('a', 2));
      await store.append('s1', event('b', 1));

      await expect(store.after('s1', 'a', 0)).resolves.toEqual({ events: [event('a', 1), event('a', 2)], found: true });
      await expect(store.after('s1', 'b', 0)).resolves.toEqual({ events: [event('b', 1)], found: true });
      await expect(store.after('s1', 'a', 2)).resolves.toEqual({ events: [], found: true });
    });

    it('appends a message after the last buffered event of its stream (at 0 for a stream it holds none of)', async () => {
      const store = await makeStore(10);
      await store.append('s1', { streamId: 'a', seq: 0 });
      await store.append('s1', event('a', 1));
      await store.append('s1', event('ab', 7));
      await store.append('s2', event('a', 9));

      await expect(appendToStream(store, 's1', 'a', event('a', 2).message!)).resolves.toBe(2);
      await expect(appendToStream(store, 's1', 'a', event('a', 3).message!)).resolves.toBe(3);
      await expect(appendToStream(store, 's1', 'c', event('c', 0).message!)).resolves.toBe(0);

      await expect(store.after('s1', 'a', 1)).resolves.toEqual({ events: [event('a', 2), event('a', 3)], found: true });
      await expect(store.after('s1', 'c', -1)).resolves.toEqual({ events: [event('c', 0)], found: false });
      await expect(store.after('s2', 'a', -1)).resolves.toEqual({ events: [event('a', 9)], found: false });
    });

    it('keeps the priming event (no message) so that its id can be resumed from', async () => {
      const store = await makeStore(4);
      await store.append('s1', { streamId: 'a', seq: 0 });
      const window = await store.after('s1', 'a', 0);
      expect(window).toEqual({ events: [], found: true });
      await store.append('s1', event('a', 1));
      await expect(store.after('s1', 'a', -1)).resolves.toEqual({
        events: [{ streamId: 'a', seq: 0 }, event('a', 1)],
        found: false,
      });
    });

    it('returns messages as they were appended, nested values included', async () => {
      const store = await makeStore(4);
      const rich: McpReplayEvent = {
        streamId: 'req-7',
        seq: 3,
        message: {
          jsonrpc: '2.0',
          id: 7,
          result: { content: [{ type: 'text', text: 'ünïcödé "quoted" \n line' }], structured: { n: 1.5, ok: null } },
        },
      };
      await store.append('s1', rich);
      await expect(store.after('s1', 'req-7', 2)).resolves.toEqual({ events: [rich], found: false });
    });

    it('reports an unknown stream, position or session as not found', async () => {
      const store = await makeStore(4);
      await store.append('s1', event('a', 0));
      await expect(store.after('s1', 'zzz', 0)).resolves.toEqual({ events: [], found: false });
      await expect(store.after('s1', 'a', 7)).resolves.toEqual({ events: [], found: false });
      await expect(store.after('other', 'a', 0)).resolves.toEqual({ events: [], found: false });
    });

    it('keeps the last `capacity` events of a session across its streams, dropping the oldest', async () => {
      const store = await makeStore(3);
      for (let seq = 0; seq < 5; seq += 1) {
        await store.append('s1', event('a', seq));
      }
      // Events 0 and 1 rolled out: resuming from 0 is truncated, but what is left after it comes back.
      await expect(store.after('s1', 'a', 0)).resolves.toEqual({
        events: [event('a', 2), event('a', 3), event('a', 4)],
        found: false,
      });
      await expect(store.after('s1', 'a', 2)).resolves.toEqual({
        events: [event('a', 3), event('a', 4)],
        found: true,
      });

      await store.append('s1', event('b', 0));
      await expect(store.after('s1', 'a', 2)).resolves.toEqual({
        events: [event('a', 3), event('a', 4)],
        found: false,
      });
      await expect(store.after('s1', 'b', -1)).resolves.toEqual({ events: [event('b', 0)], found: false });
    });

    it('holds a single event with a capacity of one', async () => {
      const store = await makeStore(1);
      await store.append('s1', event('a', 0));
      await store.append('s1', event('a', 1));
      await expect(store.after('s1', 'a', 0)).resolves.toEqual({ events: [event('a', 1)], found: false });
      await expect(store.after('s1', 'a', 1)).resolves.toEqual({ events: [], found: true });
    });

    it('keeps one buffer per session: sessions do not push each other out or see each other', async () => {
      const store = await makeStore(2);
      await store.append('s1', event('a', 0));
      await store.append('s2', event('a', 0));
      await store.append('s2', event('a', 1));
      await store.append('s2', event('a', 2));
      await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [event('a', 0)], found: false });
      await expect(store.after('s2', 'a', 0)).resolves.toEqual({
        events: [event('a', 1), event('a', 2)],
        found: false,
      });
    });

    it('drops a session buffer on clear and leaves the others', async () => {
      const store = await makeStore(4);
      await store.append('s1', event('a', 0));
      await store.append('s2', event('a', 0));
      await store.clear('s1');
      await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [], found: false });
      await expect(store.after('s2', 'a', -1)).resolves.toEqual({ events: [event('a', 0)], found: false });
      await expect(store.clear('unknown')).resolves.toBeUndefined();
      // A cleared session starts an empty buffer.
      await store.append('s1', event('a', 5));
      await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [event('a', 5)], found: false });
    });

    it('refuses a capacity below one', async () => {
      for (const capacity of [0, -1, 1.5]) {
        await expect(Promise.resolve().then(() => makeStore(capacity))).rejects.toThrow(RangeError);
      }
    });

    it('keeps at most `sessionBytes` of a session, dropping its oldest events first', async () => {
      const store = await makeStore(100, { sessionBytes: 3_000, totalBytes: 100_000 });
      for (let seq = 0; seq < 4; seq += 1) {
        await store.append('s1', sizedEvent('a', seq, 1_000));
      }
      // 4,000 bytes appended: the oldest went, and a resume from it is told so.
      await expect(store.after('s1', 'a', 0)).resolves.toEqual({
        events: [sizedEvent('a', 1, 1_000), sizedEvent('a', 2, 1_000), sizedEvent('a', 3, 1_000)],
        found: false,
      });
      await expect(store.after('s1', 'a', 1)).resolves.toEqual({
        events: [sizedEvent('a', 2, 1_000), sizedEvent('a', 3, 1_000)],
        found: true,
      });
      // A large event pushes out as many as it needs; priming events weigh nothing.
      await store.append('s1', { streamId: 'b', seq: 0 });
      await store.append('s1', sizedEvent('b', 1, 2_500));
      await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [], found: false });
      await expect(store.after('s1', 'b', -1)).resolves.toEqual({
        events: [{ streamId: 'b', seq: 0 }, sizedEvent('b', 1, 2_500)],
        found: false,
      });
      // Exactly the bound is kept.
      await store.append('s2', sizedEvent('a', 0, 3_000), dataOf(sizedEvent('a', 0, 3_000)));
      await expect(store.after('s2', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 3_000)], found: false });
    });

    it('counts the UTF-8 bytes of a message, not its characters', async () => {
      const store = await makeStore(100, { sessionBytes: 3_000, totalBytes: 100_000 });
      const wide = sizedEvent('a', 0, 2_001, 'é');
      await store.append('s1', wide, dataOf(wide));
      await store.append('s1', sizedEvent('a', 1, 1_500));
      // Counted by characters, both would fit in 3,000.
      await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 1, 1_500)], found: false });
    });

    it('keeps no event larger than `sessionBytes`, nor what came before it, so that a resume from before it is told', async () => {
      const store = await makeStore(100, { sessionBytes: 3_000, totalBytes: 100_000 });
      await store.append('s1', sizedEvent('a', 0, 1_000));
      await store.append('s1', sizedEvent('b', 0, 1_000));
      await store.append('s1', sizedEvent('a', 1, 3_001));
      await store.append('s1', sizedEvent('a', 2, 500));
      await expect(store.after('s1', 'a', 0)).resolves.toEqual({ events: [sizedEvent('a', 2, 500)], found: false });
      await expect(store.after('s1', 'b', 0)).resolves.toEqual({ events: [], found: false });
      // Another session keeps its own.
      await store.append('s2', sizedEvent('a', 0, 1_000));
      await store.append('s1', sizedEvent('a', 3, 4_000));
      await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [], found: false });
      await expect(store.after('s2', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 1_000)], found: false });
    });

    it('keeps at most `totalBytes` over all sessions, dropping the oldest of all first', async () => {
      const store = await makeStore(100, { sessionBytes: 2_000, totalBytes: 5_000 });
      await store.append('s1', sizedEvent('a', 0, 1_000));
      await store.append('s2', sizedEvent('a', 0, 1_000));
      await store.append('s3', sizedEvent('a', 0, 1_000));
      await store.append('s1', sizedEvent('a', 1, 1_000));
      await store.append('s2', sizedEvent('a', 1, 1_000));
      // 6,000 bytes: the oldest of all (s1's first) went; s1 keeps its second.
      await store.append('s3', sizedEvent('a', 1, 1_000));
      await expect(store.after('s1', 'a', 0)).resolves.toEqual({ events: [sizedEvent('a', 1, 1_000)], found: false });
      await expect(store.after('s2', 'a', 0)).resolves.toEqual({ events: [sizedEvent('a', 1, 1_000)], found: true });
      await expect(store.after('s3', 'a', 0)).resolves.toEqual({ events: [sizedEvent('a', 1, 1_000)], found: true });
      // 6,500 bytes: the next oldest, s2's first, then s3's first.
      await store.append('s4', sizedEvent('a', 0, 1_500));
      await expect(store.after('s2', 'a', 0)).resolves.toEqual({ events: [sizedEvent('a', 1, 1_000)], found: false });
      await expect(store.after('s3', 'a', 0)).resolves.toEqual({ events: [sizedEvent('a', 1, 1_000)], found: false });
      await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 1, 1_000)], found: false });
      // Then s1's second, its last: s1 keeps nothing.
      await store.append('s5', sizedEvent('a', 0, 600));
      await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [], found: false });
      await expect(store.after('s4', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 1_500)], found: false });
      await expect(store.after('s5', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 600)], found: false });
    });

    it("gives back a cleared session's bytes to the others", async () => {
      const store = await makeStore(100, { sessionBytes: 2_000, totalBytes: 4_000 });
      await store.append('s1', sizedEvent('a', 0, 2_000));
      await store.append('s2', sizedEvent('a', 0, 2_000));
      await store.clear('s1');
      await store.append('s3', sizedEvent('a', 0, 2_000));
      await expect(store.after('s2', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 2_000)], found: false });
      await expect(store.after('s3', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 2_000)], found: false });
      // Nor does an event too large to keep count against the total: s4's event pushes out s2's alone.
      await store.append('s1', sizedEvent('a', 1, 2_001));
      await store.append('s4', sizedEvent('a', 0, 1_000));
      await expect(store.after('s2', 'a', -1)).resolves.toEqual({ events: [], found: false });
      await expect(store.after('s3', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 2_000)], found: false });
      await expect(store.after('s4', 'a', -1)).resolves.toEqual({ events: [sizedEvent('a', 0, 1_000)], found: false });
    });

    it('refuses byte bounds that cannot hold an event', async () => {
      for (const bytes of [
        { sessionBytes: 0, totalBytes: 10 },
        { sessionBytes: 1.5, totalBytes: 10 },
        { sessionBytes: 10, totalBytes: 9 },
      ]) {
        await expect(Promise.resolve().then(() => makeStore(4, bytes))).rejects.toThrow(RangeError);
      }
    });
  });
}
