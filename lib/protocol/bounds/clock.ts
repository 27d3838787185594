/**
 * What "now" is for the times instances compare with each other: a session's last activity
 * (against the idle timeout), a task's creation, update and expiry. Every instance that shares
 * the state must read the same clock: the system clock for state in memory (one process), Redis's
 * clock for state in Redis (see `RedisClock`), whatever each machine's own clock says.
 */
export interface Clock {
  /** Milliseconds since the epoch, as an integer (like `Date.now()`). */
  now(): number;
}

/** This process's own clock: right for state that no other process reads. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });
