/**
 * Failed attempts per source (a client address), as a token bucket: `perMinute` attempts at
 * once, then one more every 60 / `perMinute` seconds. An attempt takes its token before the work
 * it guards (a password hash), so that attempts made at the same time count too; one that
 * succeeds gives it back, so that a caller who signs in leaves nothing behind.
 */

/** How many sources are remembered at most; the oldest is forgotten first. */
const MAX_SOURCES = 10_000;
const MINUTE_MS = 60_000;

interface Bucket {
  /** Tokens left at `at`. */
  tokens: number;
  at: number;
}

export class FailureLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly maxSources = MAX_SOURCES,
  ) {}

  /**
   * Takes a token for an attempt of `source`: `0` when it may go ahead, else how many
   * milliseconds until it may (nothing is taken then).
   */
  take(source: string): number {
    const now = this.now();
    const bucket = this.buckets.get(source);
    if (bucket === undefined) {
      if (this.buckets.size >= this.maxSources) {
        this.buckets.delete(this.buckets.keys().next().value!);
      }
      this.buckets.set(source, { tokens: this.perMinute - 1, at: now });
      return 0;
    }
    const tokens = this.refilled(bucket, now);
    bucket.at = now;
    if (tokens < 1) {
      bucket.tokens = tokens;
      // Less a hair, so that the rounding of the refill does not add a millisecond (nor a second).
      return Math.ceil(((1 - tokens) * MINUTE_MS) / this.perMinute - 1e-6);
    }
    bucket.tokens = tokens - 1;
    return 0;
  }

  /** Gives back the token of an attempt of `source` that succeeded. */
  giveBack(source: string): void {
    const bucket = this.buckets.get(source);
    if (bucket === undefined) {
      return;
    }
    const now = this.now();
    const tokens = this.refilled(bucket, now) + 1;
    if (tokens >= this.perMinute) {
      this.buckets.delete(source);
      return;
    }
    bucket.tokens = tokens;
    bucket.at = now;
  }

  private refilled(bucket: Bucket, now: number): number {
    return Math.min(this.perMinute, bucket.tokens + ((now - bucket.at) * this.perMinute) / MINUTE_MS);
  }
}
