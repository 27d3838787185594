import type { McpTaskRecord } from '../interfaces/task-store.interface';
import { TaskWaiters } from './task-waiters';

function task(status: McpTaskRecord['status']): McpTaskRecord {
  return { id: 't1', status } as McpTaskRecord;
}

describe('TaskWaiters', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('reads the task again when woken', async () => {
    const waiters = new TaskWaiters();
    let stored = task('working');
    const waiting = waiters.untilTerminal('t1', () => Promise.resolve(stored), 60_000);
    await jest.advanceTimersByTimeAsync(10);
    stored = task('completed');
    waiters.wake('t1');
    await expect(waiting).resolves.toEqual(stored);
  });

  it('reads the task again now and then without a wake-up (one the bus lost while it reconnected)', async () => {
    const waiters = new TaskWaiters();
    let stored = task('working');
    let reads = 0;
    let settled = false;
    const waiting = waiters
      .untilTerminal(
        't1',
        () => {
          reads += 1;
          return Promise.resolve(stored);
        },
        60_000,
      )
      .finally(() => (settled = true));
    await jest.advanceTimersByTimeAsync(10);
    // Completed by another instance, and its announcement never arrived here.
    stored = task('completed');
    await jest.advanceTimersByTimeAsync(4_000);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1_000);
    await expect(waiting).resolves.toEqual(stored);
    expect(reads).toBe(2);
  });

  it('gives up at its timeout with the task as it then is', async () => {
    const waiters = new TaskWaiters();
    const waiting = waiters.untilTerminal('t1', () => Promise.resolve(task('working')), 12_000);
    await jest.advanceTimersByTimeAsync(12_000);
    await expect(waiting).resolves.toEqual(task('working'));
  });
});
