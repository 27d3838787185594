/**
 * Glob patterns on route paths, segment by segment: `*` is one segment, `**` any number of
 * segments (none included), anything else a segment as written (`:id` included). No regular
 * expression is built from a pattern; a match is one pass over the path, going back only to the
 * last `**` (at most segments × pattern segments steps).
 */

/** The non-empty segments of a path or a pattern. */
function segmentsOf(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/** Why a pattern is not one, if it is not: `*` and `**` stand for whole segments only. */
export function pathPatternFault(pattern: string): string | undefined {
  if (!pattern.startsWith('/')) {
    return `"${pattern}" must start with "/"`;
  }
  const partial = segmentsOf(pattern).find((segment) => segment.includes('*') && segment !== '*' && segment !== '**');
  return partial === undefined
    ? undefined
    : `"${pattern}" has "${partial}": "*" (one segment) and "**" (any number) stand for whole segments`;
}

/** Whether `path` (`/api/v1/notes/:id`) matches `pattern` (`/api/v1/**`). */
export function matchesPathPattern(pattern: string, path: string): boolean {
  const want = segmentsOf(pattern);
  const have = segmentsOf(path);
  let p = 0;
  let h = 0;
  // Where the last `**` stood, and where in the path it began to match: the one place to go back to.
  let star = -1;
  let resume = 0;
  while (h < have.length) {
    if (p < want.length && want[p] === '**') {
      star = p;
      resume = h;
      p += 1;
    } else if (p < want.length && (want[p] === '*' || want[p] === have[h])) {
      p += 1;
      h += 1;
    } else if (star >= 0) {
      p = star + 1;
      resume += 1;
      h = resume;
    } else {
      return false;
    }
  }
  while (p < want.length && want[p] === '**') {
    p += 1;
  }
  return p === want.length;
}
