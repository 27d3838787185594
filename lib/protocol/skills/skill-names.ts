/**
 * The naming rules of Agent Skills (agentskills.io/specification, the `name` field), which the
 * Skills extension requires of the last segment of a skill's path, and the rules of the paths
 * this server serves skills and their files under. Checked by character, never by a regex.
 */

/** The longest skill name the Agent Skills specification allows. */
export const MAX_SKILL_NAME_LENGTH = 64;

function isNameChar(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2d;
}

/**
 * What is wrong with `name` as a skill name (lowercase letters, digits and hyphens, 1 to 64
 * characters, no hyphen first, last or twice in a row), or `undefined` when it is valid.
 */
export function skillNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0) {
    return 'must be a non-empty string';
  }
  if (name.length > MAX_SKILL_NAME_LENGTH) {
    return `must be at most ${MAX_SKILL_NAME_LENGTH} characters (got ${name.length})`;
  }
  for (let index = 0; index < name.length; index += 1) {
    if (!isNameChar(name.charCodeAt(index))) {
      return `must hold only lowercase letters, digits and hyphens (got ${JSON.stringify(name)})`;
    }
  }
  if (name.startsWith('-') || name.endsWith('-')) {
    return `must not start or end with a hyphen (got ${JSON.stringify(name)})`;
  }
  if (name.includes('--')) {
    return `must not hold two hyphens in a row (got ${JSON.stringify(name)})`;
  }
  return undefined;
}

// Characters a path segment may not hold besides control characters: separators. URI delimiters
// (`?`, `#`, `%`) are percent-encoded in the URI.
const FORBIDDEN = new Set(['/', '\\']);

/**
 * What is wrong with `path` as a `/`-separated relative path (a skill's path, or a file's path in
 * its skill): empty segments, `.` or `..`, a leading or trailing slash, a backslash, control
 * characters. `undefined` when it is valid.
 */
export function relativePathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || path.length === 0) {
    return 'must be a non-empty string';
  }
  for (const segment of path.split('/')) {
    if (segment.length === 0 || segment === '.' || segment === '..') {
      return `must be a relative path of non-empty segments, without "." or ".." (got ${JSON.stringify(path)})`;
    }
    for (const char of segment) {
      const code = char.charCodeAt(0);
      if (FORBIDDEN.has(char) || code < 0x20 || code === 0x7f) {
        return `must not hold ${JSON.stringify(char)} (got ${JSON.stringify(path)})`;
      }
    }
  }
  return undefined;
}
