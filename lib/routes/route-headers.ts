/**
 * The `@Headers('x-name')` parameters of a route as tool inputs: which headers a caller may
 * set, and a value's check. Never the headers the call forwards from the MCP request (the
 * caller's credentials and address must stay what the MCP request said), nor those that frame
 * or route the request (the call sets them itself).
 */
import { McpErrorCode } from '../protocol/messages/json-rpc';
import { McpError } from '../protocol/messages/mcp-error';

/** Headers a caller never sets: hop-by-hop, framing, routing and the proxy's. */
const NEVER_SET = new Set([
  'authorization',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'te',
  'trailer',
  'connection',
  'keep-alive',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'expect',
  'cookie',
]);

/** The largest header value a caller may send, in characters. */
export const MAX_HEADER_INPUT = 4096;

/**
 * Whether the caller may set header `name` (lower case) of a route: not one of {@link NEVER_SET},
 * nor one the call forwards or sets itself (`reserved`: `routes.forwardHeaders`, the version
 * header).
 */
export function isSettableHeader(name: string, reserved: ReadonlySet<string>): boolean {
  return !NEVER_SET.has(name) && !reserved.has(name);
}

/** The input schema of a header. */
export function headerInputSchema(): Record<string, unknown> {
  return { type: 'string', maxLength: MAX_HEADER_INPUT };
}

// Visible ASCII, space, tab and obs-text: what a header value may hold (RFC 9110 field-value).
// One character class, tested once per character: linear.
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * A header input's value, checked.
 * @throws McpError (-32602) for a value that is not a string, too long, or holds a character a
 * header may not (a line break among them)
 */
export function headerValue(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_HEADER_INPUT || INVALID_VALUE.test(value)) {
    throw new McpError(
      McpErrorCode.InvalidParams,
      `The header "${name}" must be a string of at most ${MAX_HEADER_INPUT} visible characters`,
    );
  }
  return value;
}
