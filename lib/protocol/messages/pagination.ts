/**
 * Cursor pagination of the list methods. A cursor is opaque to clients: the base64url of
 * the last key of the previous page, and the next page starts strictly after that key, so a
 * page stays well-defined when items are added or removed between calls.
 */
import { McpError } from './mcp-error';
import { McpErrorCode } from './json-rpc';

const PREFIX = 'c1:';

/** Encodes the key a page ended with. */
export function encodeCursor(lastKey: string): string {
  return Buffer.from(PREFIX + lastKey, 'utf8').toString('base64url');
}

/** Decodes a cursor; a cursor this server did not issue is Invalid params (-32602). */
export function decodeCursor(cursor: unknown): string {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid cursor');
  }
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!decoded.startsWith(PREFIX)) {
    throw new McpError(McpErrorCode.InvalidParams, 'Invalid cursor');
  }
  return decoded.slice(PREFIX.length);
}

/** One page of a sorted list. */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/**
 * Returns the page of `items` (sorted by `keyOf`) after `cursor`. A `pageSize` of 0 means one
 * page holding everything.
 */
export function paginate<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  cursor: unknown,
  pageSize: number,
): Page<T> {
  let start = 0;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    start = items.findIndex((item) => keyOf(item) > after);
    if (start === -1) {
      start = items.length;
    }
  }
  if (pageSize <= 0 || start + pageSize >= items.length) {
    return { items: start === 0 ? (items as T[]) : items.slice(start) };
  }
  const page = items.slice(start, start + pageSize);
  return { items: page, nextCursor: encodeCursor(keyOf(page[page.length - 1])) };
}
