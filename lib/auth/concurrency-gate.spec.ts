import { ConcurrencyGate } from './concurrency-gate';

describe('ConcurrencyGate', () => {
  it('holds its limit whatever order the tasks end in, and runs the waiting in turn', async () => {
    const gate = new ConcurrencyGate(2, 10);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task = (n: number, ms: number) => async () => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running -= 1;
      order.push(n);
      if (n === 2) {
        throw new Error('a failed task frees its slot too');
      }
      return n;
    };
    const results = await Promise.allSettled([5, 1, 3, 1, 1, 2].map((ms, n) => gate.run(task(n, ms))!));
    expect(most).toBe(2);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect(order).toHaveLength(6);
  });

  it('refuses a task without running it when maxWaiting wait already', () => {
    const gate = new ConcurrencyGate(1, 1);
    const never = () => new Promise<never>(() => undefined);
    expect(gate.run(never)).toBeDefined();
    expect(gate.run(never)).toBeDefined();
    const refused = jest.fn();
    expect(gate.run(refused)).toBeUndefined();
    expect(refused).not.toHaveBeenCalled();
  });
});
