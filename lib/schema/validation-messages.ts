/**
 * How validation failures read, whichever validator found them: one line, a few problems.
 */

/** How many problems a message lists before it stops. */
const MAX_LISTED = 5;

/** One line of problems: the first five, formatted, then how many more there are. */
export function joinListed<T>(problems: readonly T[], format: (problem: T) => string): string {
  const more = problems.length > MAX_LISTED ? ` (and ${problems.length - MAX_LISTED} more)` : '';
  return problems.slice(0, MAX_LISTED).map(format).join('; ') + more;
}
