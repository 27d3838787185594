import { FailureLimiter } from './failure-limiter';

describe('FailureLimiter', () => {
  it('lets perMinute attempts through at once, then one every 60 / perMinute seconds', () => {
    let now = 0;
    const limiter = new FailureLimiter(3, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0]);
    expect(limiter.take('a')).toBe(20_000);
    now += 19_999;
    expect(limiter.take('a')).toBe(1);
    now += 1;
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('b')).toBe(0);
  });

  it('takes back nothing from a source that succeeds: its tokens return', () => {
    const limiter = new FailureLimiter(2, () => 0);
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect(limiter.take('a')).toBe(0);
      limiter.giveBack('a');
    }
  });

  it('remembers at most maxSources sources, forgetting the oldest first', () => {
    const limiter = new FailureLimiter(1, () => 0, 2);
    limiter.take('a');
    limiter.take('b');
    expect(limiter.take('a')).toBeGreaterThan(0);
    limiter.take('c');
    // 'a' was forgotten to make room for 'c'; 'b' is still held.
    expect(limiter.take('a')).toBe(0);
    expect(limiter.take('c')).toBeGreaterThan(0);
  });
});
