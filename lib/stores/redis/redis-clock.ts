import type { Clock } from '../../protocol/bounds/clock';
import { messageOf } from '../../protocol/messages/mcp-error';
import type { RedisHub } from './redis-hub';

/** Where the clock reports a skew, a jump or a failed reading. */
export interface RedisClockLogger {
  warn(message: string): void;
  debug(message: string): void;
}

/** How the clock reads Redis's time, and how often. */
export interface RedisClockOptions {
  /** Redis's time, in ms since the epoch (`TIME`). */
  readonly redisTime: () => Promise<number>;
  readonly logger: RedisClockLogger;
  /** How often Redis's time is read again, in ms. @default 30_000 */
  readonly resyncMs?: number;
}

/** A local clock this far from Redis's at startup is worth a warning. */
export const SKEW_WARNING_MS = 2_000;
/** A clock that moved this much between two readings jumped (an NTP step, a failover, a suspend). */
export const JUMP_WARNING_MS = 1_000;
const DEFAULT_RESYNC_MS = 30_000;
/**
 * A later reading whose round trip took longer is dropped (its error is up to half the round
 * trip): a stalled Redis does not move the clock.
 */
const MAX_ROUND_TRIP_MS = 1_000;

/** One reading of Redis's time, with the local clocks at the round trip's midpoint. */
interface Reading {
  readonly redis: number;
  /** This process's monotonic time (`performance.now()`). */
  readonly monotonic: number;
  /** This machine's wall clock (`Date.now()`). */
  readonly wall: number;
  readonly roundTripMs: number;
}

/**
 * Redis's clock, read here without a Redis command: `TIME` is read at startup and every
 * `resyncMs` in the background, and `now()` adds the monotonic time elapsed since. Every
 * instance on one Redis then agrees on what "now" is, whatever its own wall clock says, and a
 * step of this machine's wall clock (NTP, an operator) between two readings moves nothing.
 *
 * It warns when this machine's clock differs from Redis's by more than {@link SKEW_WARNING_MS}
 * at startup, and when a later reading sees either clock jump by more than
 * {@link JUMP_WARNING_MS}. A reading that fails keeps the last one (this instance's own clock
 * when none succeeded).
 */
export class RedisClock implements Clock {
  /** Redis's time minus the monotonic time: `now()` is one addition. */
  private base: number;
  /** The last reading taken into account. */
  private last: Reading | undefined;
  private timer: NodeJS.Timeout | undefined;
  private syncing = false;

  private constructor(private readonly options: RedisClockOptions) {
    // Until Redis answers: this machine's own clock.
    this.base = Date.now() - performance.now();
  }

  /** Reads Redis's time once, then keeps reading it in the background (stop with `stop`). */
  static async start(options: RedisClockOptions): Promise<RedisClock> {
    const clock = new RedisClock(options);
    await clock.sync();
    clock.timer = setInterval(() => void clock.sync(), options.resyncMs ?? DEFAULT_RESYNC_MS);
    clock.timer.unref();
    return clock;
  }

  /** The clock of the hub's Redis, reporting to `logger`. */
  static of(hub: RedisHub, logger: RedisClockLogger): Promise<RedisClock> {
    return RedisClock.start({ redisTime: () => redisTimeOf(hub), logger });
  }

  now(): number {
    return Math.floor(this.base + performance.now());
  }

  /** Stops the background readings. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads Redis's time and follows it; never rejects. */
  async sync(): Promise<void> {
    if (this.syncing) {
      return;
    }
    this.syncing = true;
    try {
      const reading = await this.read();
      if (reading !== undefined) {
        this.follow(reading);
      }
    } finally {
      this.syncing = false;
    }
  }

  private async read(): Promise<Reading | undefined> {
    const { redisTime, logger } = this.options;
    const monotonic = performance.now();
    const wall = Date.now();
    let redis: number;
    try {
      redis = await redisTime();
    } catch (error) {
      const failure = `Could not read Redis's clock (TIME): ${messageOf(error)}; using`;
      if (this.last === undefined) {
        logger.warn(`${failure} this instance's own clock until it can`);
      } else {
        logger.debug(`${failure} the last reading`);
      }
      return undefined;
    }
    const roundTripMs = performance.now() - monotonic;
    if (this.last !== undefined && roundTripMs > MAX_ROUND_TRIP_MS) {
      logger.debug(`Redis's clock read in ${Math.round(roundTripMs)} ms: reading dropped, the last one kept`);
      return undefined;
    }
    return {
      redis,
      monotonic: monotonic + roundTripMs / 2,
      wall: (wall + Date.now()) / 2,
      roundTripMs,
    };
  }

  private follow(reading: Reading): void {
    const { logger } = this.options;
    const previous = this.last;
    const offset = reading.wall - reading.redis;
    if (previous === undefined) {
      if (Math.abs(offset) > SKEW_WARNING_MS) {
        logger.warn(
          `This instance's clock is ${seconds(offset)} ${aheadOrBehind(offset)} Redis's: ` +
            "nest-mcp uses Redis's clock for what instances compare (session idleness, task expiry), " +
            "but check this machine's time synchronisation (NTP)",
        );
      }
    } else {
      const elapsed = reading.monotonic - previous.monotonic;
      // Each clock against this process's monotonic time, which no one sets.
      const redisJump = reading.redis - previous.redis - elapsed;
      const wallJump = reading.wall - previous.wall - elapsed;
      const since = `in the last ${seconds(elapsed)}`;
      if (Math.abs(redisJump) > JUMP_WARNING_MS) {
        logger.warn(
          `Redis's clock jumped ${seconds(redisJump)} ${redisJump > 0 ? 'forward' : 'back'} ${since} ` +
            '(a failover to a server with another clock, or its clock was set): nest-mcp follows it, ' +
            'so sessions and tasks end by the new time',
        );
      }
      if (Math.abs(wallJump) > JUMP_WARNING_MS) {
        logger.warn(
          `This instance's clock jumped ${seconds(wallJump)} ${wallJump > 0 ? 'forward' : 'back'} ${since}; ` +
            `it is now ${seconds(offset)} ${aheadOrBehind(offset)} Redis's. nest-mcp goes on with Redis's clock`,
        );
      }
    }
    this.base = reading.redis - reading.monotonic;
    this.last = reading;
  }
}

/** Redis's `TIME`, in ms since the epoch. */
async function redisTimeOf(hub: RedisHub): Promise<number> {
  const [secondsPart, microseconds] = await hub.run('clock', (client) => client.time());
  return Number(secondsPart) * 1_000 + Number(microseconds) / 1_000;
}

function seconds(ms: number): string {
  return `${(Math.abs(ms) / 1_000).toFixed(1)} s`;
}

function aheadOrBehind(offset: number): string {
  return offset > 0 ? 'ahead of' : 'behind';
}
