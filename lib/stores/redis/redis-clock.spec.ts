import { JUMP_WARNING_MS, RedisClock, SKEW_WARNING_MS } from './redis-clock';

const HOUR_MS = 3_600_000;
const RESYNC_MS = 30_000;
/** This machine's wall clock when each test starts (fake time). */
const WALL_START = Date.UTC(2026, 0, 1, 12);

/**
 * A Redis whose clock runs with this process's monotonic time (both are real clocks, neither set
 * by `jest.setSystemTime`, which steps the wall clock only), from `at` at the start of the test.
 * `jump` sets its clock forward or back; `failing` makes `TIME` fail; `slowMs` makes it answer late.
 */
function fakeRedis(at: number) {
  const redis = {
    epoch: at - performance.now(),
    failing: false,
    slowMs: 0,
    reads: 0,
    time(): Promise<number> {
      redis.reads += 1;
      if (redis.failing) {
        return Promise.reject(new Error('Connection is closed.'));
      }
      if (redis.slowMs === 0) {
        return Promise.resolve(redis.epoch + performance.now());
      }
      return new Promise((resolve) => setTimeout(() => resolve(redis.epoch + performance.now()), redis.slowMs));
    },
    now: () => redis.epoch + performance.now(),
    jump(ms: number): void {
      redis.epoch += ms;
    },
  };
  return redis;
}

function logger() {
  return { warn: jest.fn<void, [string]>(), debug: jest.fn<void, [string]>() };
}

describe('RedisClock', () => {
  let clock: RedisClock | undefined;

  beforeEach(() => {
    jest.useFakeTimers({ now: WALL_START });
  });

  afterEach(() => {
    clock?.stop();
    clock = undefined;
    jest.useRealTimers();
  });

  async function start(redis: ReturnType<typeof fakeRedis>, log = logger()) {
    clock = await RedisClock.start({ redisTime: () => redis.time(), logger: log, resyncMs: RESYNC_MS });
    return { clock, log };
  }

  it("tells Redis's time, not this machine's, and reads Redis only at startup and every re-sync", async () => {
    const redis = fakeRedis(WALL_START - HOUR_MS);
    const { clock } = await start(redis);
    expect(Math.abs(clock.now() - redis.now())).toBeLessThanOrEqual(1);
    expect(Number.isInteger(clock.now())).toBe(true);

    await jest.advanceTimersByTimeAsync(RESYNC_MS - 1);
    expect(Math.abs(clock.now() - redis.now())).toBeLessThanOrEqual(1);
    expect(redis.reads).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(redis.reads).toBe(2);
  });

  it('warns at startup when this clock is more than a few seconds ahead of or behind Redis, saying by how much', async () => {
    const ahead = await start(fakeRedis(WALL_START - HOUR_MS));
    expect(ahead.log.warn).toHaveBeenCalledTimes(1);
    expect(ahead.log.warn.mock.calls[0][0]).toMatch(
      /^This instance's clock is 3600\.0 s ahead of Redis's: nest-mcp uses Redis's clock for what instances compare/,
    );
    ahead.clock.stop();

    const behind = await start(fakeRedis(WALL_START + 2_500));
    expect(behind.log.warn.mock.calls[0][0]).toMatch(/^This instance's clock is 2\.5 s behind Redis's/);
    behind.clock.stop();

    const close = await start(fakeRedis(WALL_START + SKEW_WARNING_MS - 100));
    expect(close.log.warn).not.toHaveBeenCalled();
  });

  it("a step of this machine's clock moves nothing; the next re-sync says the clock jumped", async () => {
    const redis = fakeRedis(WALL_START);
    const { clock, log } = await start(redis);
    jest.setSystemTime(Date.now() + HOUR_MS);
    expect(Math.abs(clock.now() - redis.now())).toBeLessThanOrEqual(1);

    await jest.advanceTimersByTimeAsync(RESYNC_MS);
    expect(Math.abs(clock.now() - redis.now())).toBeLessThanOrEqual(1);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls[0][0]).toBe(
      "This instance's clock jumped 3600.0 s forward in the last 30.0 s; it is now 3600.0 s ahead of Redis's. " +
        "nest-mcp goes on with Redis's clock",
    );

    // Nothing moved since: nothing more to say.
    await jest.advanceTimersByTimeAsync(RESYNC_MS);
    expect(log.warn).toHaveBeenCalledTimes(1);
  });

  it("follows Redis's clock when it jumps (a failover to another server), and warns of the jump", async () => {
    const redis = fakeRedis(WALL_START);
    const { clock, log } = await start(redis);
    redis.jump(-5_000);
    expect(clock.now() - redis.now()).toBeGreaterThanOrEqual(4_999);

    await jest.advanceTimersByTimeAsync(RESYNC_MS);
    expect(Math.abs(clock.now() - redis.now())).toBeLessThanOrEqual(1);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls[0][0]).toMatch(
      /^Redis's clock jumped 5\.0 s back in the last 30\.0 s .*nest-mcp follows it/,
    );
  });

  it('takes a drift under the jump threshold silently', async () => {
    const redis = fakeRedis(WALL_START);
    const { clock, log } = await start(redis);
    redis.jump(JUMP_WARNING_MS - 100);
    jest.setSystemTime(Date.now() - (JUMP_WARNING_MS - 100));
    await jest.advanceTimersByTimeAsync(RESYNC_MS);
    expect(Math.abs(clock.now() - redis.now())).toBeLessThanOrEqual(1);
    expect(log.warn).not.toHaveBeenCalled();
  });

  it('keeps the last reading when a re-sync fails or answers too late', async () => {
    const redis = fakeRedis(WALL_START + 10_000);
    const { clock, log } = await start(redis);
    redis.failing = true;
    redis.jump(5_000);
    await jest.advanceTimersByTimeAsync(RESYNC_MS);
    expect(log.debug).toHaveBeenCalledWith(
      "Could not read Redis's clock (TIME): Connection is closed.; using the last reading",
    );
    expect(clock.now() - redis.now()).toBeLessThanOrEqual(-4_999);

    // A reading whose round trip took 2 s could be off by 1 s: dropped.
    redis.failing = false;
    redis.slowMs = 2_000;
    await jest.advanceTimersByTimeAsync(RESYNC_MS + 2_000);
    expect(log.debug).toHaveBeenLastCalledWith("Redis's clock read in 2000 ms: reading dropped, the last one kept");
    expect(clock.now() - redis.now()).toBeLessThanOrEqual(-4_999);

    redis.slowMs = 0;
    await jest.advanceTimersByTimeAsync(RESYNC_MS);
    expect(Math.abs(clock.now() - redis.now())).toBeLessThanOrEqual(1);
  });

  it("uses this machine's clock when Redis's cannot be read at startup, and Redis's once it can", async () => {
    const redis = fakeRedis(WALL_START + HOUR_MS);
    redis.failing = true;
    const { clock, log } = await start(redis);
    expect(log.warn).toHaveBeenCalledWith(
      "Could not read Redis's clock (TIME): Connection is closed.; using this instance's own clock until it can",
    );
    expect(Math.abs(clock.now() - Date.now())).toBeLessThanOrEqual(1);

    redis.failing = false;
    await jest.advanceTimersByTimeAsync(RESYNC_MS);
    expect(Math.abs(clock.now() - redis.now())).toBeLessThanOrEqual(1);
    expect(log.warn).toHaveBeenLastCalledWith(
      expect.stringMatching(/^This instance's clock is 3600\.0 s behind Redis's/),
    );
  });

  it('stops reading Redis once stopped', async () => {
    const redis = fakeRedis(WALL_START);
    const { clock } = await start(redis);
    clock.stop();
    await jest.advanceTimersByTimeAsync(RESYNC_MS * 3);
    expect(redis.reads).toBe(1);
  });
});
