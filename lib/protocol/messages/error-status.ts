import type { McpEra } from './revisions';
import { McpErrorCode } from './json-rpc';

/**
 * The HTTP status that carries a JSON-RPC error, by era. The modern era (2026-07-28) gives the
 * protocol errors their own statuses so that intermediaries can route on them; the legacy era
 * answers every JSON-RPC error with 200 and leaves the code to speak.
 *
 * A call that lacks scopes is a 403 in both eras.
 *
 * Transport-level refusals (bad Accept, unknown session, oversized body...) are decided by the
 * transports and do not pass through this table.
 */
export function httpStatusForError(code: number, era: McpEra): number {
  if (code === McpErrorCode.InsufficientScope) {
    // Both eras: a 403 is what makes a client step up its authorization (SEP-835).
    return 403;
  }
  if (era === 'legacy') {
    return code === McpErrorCode.ParseError || code === McpErrorCode.InvalidRequest ? 400 : 200;
  }
  switch (code) {
    case McpErrorCode.MethodNotFound:
      return 404;
    case McpErrorCode.ParseError:
    case McpErrorCode.InvalidRequest:
    case McpErrorCode.InvalidParams:
    case McpErrorCode.HeaderMismatch:
    case McpErrorCode.MissingRequiredClientCapability:
    case McpErrorCode.UnsupportedProtocolVersion:
      return 400;
    default:
      return 200;
  }
}
