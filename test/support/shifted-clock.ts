/**
 * Preloaded into a server process (`startServerProcess(..., { preload })`) to give it a wrong
 * wall clock, as a machine whose time is not synchronised has: `Date.now()` and `new Date()`
 * read `CLOCK_SHIFT_MS` (a signed number of ms) ahead of the real time. Timers and monotonic
 * time (`performance.now()`) run as they do on such a machine: untouched.
 */
const shiftMs = Number(process.env.CLOCK_SHIFT_MS ?? '0');
if (!Number.isFinite(shiftMs)) {
  throw new RangeError(`CLOCK_SHIFT_MS must be a number of milliseconds (got ${process.env.CLOCK_SHIFT_MS})`);
}

const RealDate = Date;

class ShiftedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) {
      super(RealDate.now() + shiftMs);
    } else {
      super(...(args as [string | number | Date]));
    }
  }

  static override now(): number {
    return RealDate.now() + shiftMs;
  }
}

globalThis.Date = ShiftedDate as DateConstructor;
