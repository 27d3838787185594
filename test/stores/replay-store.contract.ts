import type { ReplayEvent, ReplayStore } from '../../lib/sessions/replay-store.interface';

/** An event carrying a message that names its position. */
export function replayEvent(streamId: string, seq: number): ReplayEvent {
  return { streamId, seq, message: { jsonrpc: '2.0', method: 'notifications/message', params: { seq } } };
}

/**
 * The behaviour every {@link ReplayStore} shares.
 *
 * @param makeStore an empty store whose buffers hold `capacity` events per session, made in
 * each test; it throws (or rejects with) a RangeError for a capacity below one.
 */
export function describeReplayStoreContract(
  name: string,
  makeStore: (capacity: number) => ReplayStore | Promise<ReplayStore>,
): void {
  const event = replayEvent;

  describe(`${name} (ReplayStore contract)`, () => {
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
      const rich: ReplayEvent = {
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
  });
}
