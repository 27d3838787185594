/**
 * Log lines of refused requests, for every room (transports, sessions, tasks, the engine). A
 * refusal an operator can act on (a Host the configuration does not list, bodies over the limit,
 * a bound reached) is a warning, at most once a minute per reason, so that a misbehaving client
 * cannot flood the log; the next warning says how many were left out. Refusals that are the
 * client's own business (no credentials, a malformed body) are debug lines.
 */

import { LOG_MESSAGE_MAX_LENGTH, logText } from './log-text';

/**
 * What a client (and the log) is told when a bound stops it, in one wording for every bound:
 * what there is too much of, the bound, and the option that sets it.
 */
export function tooMany(what: string, max: number, option: string): string {
  return `Too many ${what}: at most ${max} (McpModule option ${option})`;
}

export interface RefusalLogger {
  warn(message: string): void;
  debug(message: string): void;
}

export class RefusalLog {
  /** Per reason: when it was last warned about, and how many were left out since. */
  private readonly warned = new Map<string, { at: number; skipped: number }>();

  constructor(
    private readonly logger: RefusalLogger,
    private readonly intervalMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** A warning for `reason`, unless one was logged within the interval (then a debug line). */
  warn(reason: string, text: string): void {
    // Refusal lines quote what was refused (an id, a caller, a URI): one line each, whatever it holds.
    const message = logText(text, LOG_MESSAGE_MAX_LENGTH);
    const now = this.now();
    const last = this.warned.get(reason);
    if (last !== undefined && now - last.at < this.intervalMs) {
      last.skipped += 1;
      this.logger.debug(message);
      return;
    }
    const skipped = last?.skipped ?? 0;
    this.warned.set(reason, { at: now, skipped: 0 });
    this.logger.warn(skipped > 0 ? `${message} (and ${skipped} more like it since the last warning)` : message);
  }

  debug(message: string): void {
    this.logger.debug(logText(message, LOG_MESSAGE_MAX_LENGTH));
  }
}
