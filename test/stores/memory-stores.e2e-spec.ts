import { isThenable } from '../../lib/protocol/messages/thenables';
import { MemoryReplayStore } from '../../lib/stores/memory/memory-replay.store';
import { MemorySessionStore } from '../../lib/stores/memory/memory-session.store';
import { MemoryTaskStore } from '../../lib/stores/memory/memory-task.store';
import { describeReplayStoreContract, replayEvent } from './replay-store.contract';
import { describeSessionStoreContract, sessionRecord } from './session-store.contract';
import { describeTaskStoreContract } from './task-store.contract';

describeSessionStoreContract('MemorySessionStore', async () => new MemorySessionStore());
describeReplayStoreContract('MemoryReplayStore', (capacity, bytes) => new MemoryReplayStore(capacity, bytes));
// A store written before `appendNext`: the module appends after what `after` reads.
describeReplayStoreContract('a replay store without appendNext', (capacity, bytes) => {
  const store = new MemoryReplayStore(capacity, bytes);
  return {
    append: (sessionId, event, data) => store.append(sessionId, event, data),
    after: (sessionId, streamId, seq) => store.after(sessionId, streamId, seq),
    clear: (sessionId) => store.clear(sessionId),
  };
});
describeTaskStoreContract('MemoryTaskStore', async () => new MemoryTaskStore(), {
  // The store's work is reads of its maps and sets: a walk over tasks reads one per task.
  async work(run) {
    const reads = [jest.spyOn(Map.prototype, 'get'), jest.spyOn(Set.prototype, 'has')];
    try {
      await run();
      return reads.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
    } finally {
      reads.forEach((spy) => spy.mockRestore());
    }
  },
});

describe('MemorySessionStore', () => {
  it('hands out the stored record itself, so that a session handle is kept per record', async () => {
    const store = new MemorySessionStore();
    await store.create(sessionRecord('s1'));
    const first = store.get('s1');
    expect(first).toMatchObject({ id: 's1' });
    expect(store.get('s1')).toBe(first);
    await expect(store.update('s1', { logLevel: 'debug' })).resolves.toBe(first);
  });

  it('answers get at once, not with a promise, for a session and for an unknown id', async () => {
    const store = new MemorySessionStore();
    await store.create(sessionRecord('s1'));
    const known = store.get('s1');
    const unknown = store.get('ghost');
    expect(isThenable(known)).toBe(false);
    expect(known).toEqual(sessionRecord('s1'));
    expect(unknown).toBeUndefined();
  });
});

describe('MemoryReplayStore', () => {
  it('holds a buffer only for sessions with events, until they are cleared', async () => {
    const store = new MemoryReplayStore(4);
    await store.append('s1', replayEvent('a', 0));
    await store.append('s2', replayEvent('a', 0));
    expect(store.sessionCount).toBe(2);
    await store.clear('s1');
    expect(store.sessionCount).toBe(1);
    await store.clear('unknown');
    expect(store.sessionCount).toBe(1);
  });
});
