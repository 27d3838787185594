import { MemoryReplayStore } from './memory-replay.store';
import type { ReplayEvent } from '../../sessions/replay-store.interface';

function event(streamId: string, seq: number): ReplayEvent {
  return { streamId, seq, message: { jsonrpc: '2.0', method: 'notifications/message', params: { seq } } };
}

describe('MemoryReplayStore', () => {
  it('returns the events of one stream after a position, oldest first, and says the position was found', async () => {
    const store = new MemoryReplayStore(10);
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
    const store = new MemoryReplayStore(4);
    await store.append('s1', { streamId: 'a', seq: 0 });
    await expect(store.after('s1', 'a', 0)).resolves.toEqual({ events: [], found: true });
  });

  it('reports an unknown stream, position or session as not found', async () => {
    const store = new MemoryReplayStore(4);
    await store.append('s1', event('a', 0));
    await expect(store.after('s1', 'zzz', 0)).resolves.toEqual({ events: [], found: false });
    await expect(store.after('s1', 'a', 7)).resolves.toEqual({ events: [], found: false });
    await expect(store.after('other', 'a', 0)).resolves.toEqual({ events: [], found: false });
  });

  it('keeps the last `capacity` events of a session across its streams, dropping the oldest', async () => {
    const store = new MemoryReplayStore(3);
    for (let seq = 0; seq < 5; seq += 1) {
      await store.append('s1', event('a', seq));
    }
    // Events 0 and 1 rolled out: resuming from 0 is truncated, but what is left after it comes back.
    await expect(store.after('s1', 'a', 0)).resolves.toEqual({
      events: [event('a', 2), event('a', 3), event('a', 4)],
      found: false,
    });
    await expect(store.after('s1', 'a', 2)).resolves.toEqual({ events: [event('a', 3), event('a', 4)], found: true });

    await store.append('s1', event('b', 0));
    await expect(store.after('s1', 'a', 2)).resolves.toEqual({ events: [event('a', 3), event('a', 4)], found: false });
    await expect(store.after('s1', 'b', -1)).resolves.toEqual({ events: [event('b', 0)], found: false });
  });

  it('keeps one buffer per session: sessions do not push each other out or see each other', async () => {
    const store = new MemoryReplayStore(2);
    await store.append('s1', event('a', 0));
    await store.append('s2', event('a', 0));
    await store.append('s2', event('a', 1));
    await store.append('s2', event('a', 2));
    await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [event('a', 0)], found: false });
    await expect(store.after('s2', 'a', 0)).resolves.toEqual({ events: [event('a', 1), event('a', 2)], found: false });
  });

  it('drops a session buffer on clear', async () => {
    const store = new MemoryReplayStore(4);
    await store.append('s1', event('a', 0));
    await store.append('s2', event('a', 0));
    expect(store.sessionCount).toBe(2);
    await store.clear('s1');
    expect(store.sessionCount).toBe(1);
    await expect(store.after('s1', 'a', -1)).resolves.toEqual({ events: [], found: false });
    await expect(store.after('s2', 'a', -1)).resolves.toEqual({ events: [event('a', 0)], found: false });
    await store.clear('unknown');
  });

  it('refuses a capacity below one', () => {
    expect(() => new MemoryReplayStore(0)).toThrow(RangeError);
    expect(() => new MemoryReplayStore(1.5)).toThrow(RangeError);
  });
});
