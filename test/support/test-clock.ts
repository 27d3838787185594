/**
 * A clock a test moves forward: the module's `MCP_CLOCK` (what "now" is for session activity and
 * task times) replaced in a test app (`startHttpApp(..., { clock })`). It reads the real time plus
 * however far the test has advanced it, so a session goes idle the moment the test says so, while
 * the module's own timers (the sweeper's interval, keep-alives) run as they do in production.
 */
export class TestClock {
  private offsetMs = 0;

  /** Milliseconds since the epoch, `advance`d ones included (the `Clock` of nest-mcp). */
  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Moves the clock `ms` forward. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}
